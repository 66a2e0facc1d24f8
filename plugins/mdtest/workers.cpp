#include "plugins/mdtest/workers.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <iobench/clock.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <random>
#include <vector>

#include "plugins/common/ior_data_pattern.hpp"
#include "plugins/common/path_mode.hpp"

namespace iobench::plugins::mdtest {
namespace {

/// 0, or errno after a failed call (`ret` < 0).
int result_of(int ret) noexcept { return ret < 0 ? errno : 0; }

/// Where an item op acts: the item `name` of a tree node, either by its whole path (PathMode::
/// kFull: a reused buffer holding the test directory's path, the node's path and the name, so
/// the kernel resolves every component on every op, as mdtest's calls do) or by name in the
/// node's directory, opened when the items move to another node (kDirfd: one *at call on the
/// open node per op). Neither allocates per op once the buffers have grown to the longest path.
class NodeCursor {
 public:
  /// `prefix`: full_prefix() of the test directory for kFull; empty for kDirfd.
  NodeCursor(const ConfinedDir& test_dir, const TreeLayout& layout, std::string base,
             std::string prefix = {})
      : test_dir_(test_dir),
        layout_(layout),
        base_(std::move(base)),
        full_(std::move(prefix)),
        by_path_(!full_.empty()),
        prefix_len_(full_.size()) {
    path_.reserve(256);
    full_.reserve(prefix_len_ + 256);
  }
  /// Points the next op at `name` (which must outlive it) in node `node`.
  void at(std::uint64_t node, std::string_view name) {
    if (node != node_) {
      layout_.node_path(base_, node, path_);
      if (by_path_) {
        full_.resize(prefix_len_);
        full_ += path_;
        full_ += '/';
        dir_len_ = full_.size();
      } else {
        dir_ = OwnedConfinedDir();
        dir_ = test_dir_.open_dir(path_);
      }
      node_ = node;
    }
    name_ = name;
    if (by_path_) {
      full_.resize(dir_len_);
      full_ += name;
    }
  }
  // The ops, on what at() pointed at: 0 or the errno. By path they are the calls mdtest's POSIX
  // backend makes (creation adds O_EXCL | O_NOFOLLOW: never an existing name, never a link).
  [[nodiscard]] int mkdir() const noexcept {
    return by_path_ ? result_of(::mkdir(full_.c_str(), 0755)) : dir_.try_mkdir(name_, 0755);
  }
  [[nodiscard]] int rmdir() const noexcept {
    return by_path_ ? result_of(::rmdir(full_.c_str())) : dir_.try_rmdir(name_);
  }
  [[nodiscard]] int unlink() const noexcept {
    return by_path_ ? result_of(::unlink(full_.c_str())) : dir_.try_unlink(name_);
  }
  [[nodiscard]] int stat(struct stat& st) const noexcept {
    return by_path_ ? result_of(::stat(full_.c_str(), &st)) : dir_.try_stat(name_, st);
  }
  /// O_NOFOLLOW and O_CLOEXEC are added.
  [[nodiscard]] int open(int flags, mode_t mode, int& fd) const noexcept {
    if (!by_path_) return dir_.try_open(name_, flags, mode, fd);
    fd = ::open(full_.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
    return result_of(fd);
  }
  /// Renames what this cursor points at to what `to` points at.
  [[nodiscard]] int rename_to(const NodeCursor& to) const noexcept {
    return by_path_ ? result_of(::rename(full_.c_str(), to.full_.c_str()))
                    : dir_.try_rename(name_, to.dir_, to.name_);
  }
  /// The path of `name` in the current node, for messages.
  [[nodiscard]] std::string shown(const std::string& name) const {
    return test_dir_.shown(path_ + "/" + name).string();
  }

 private:
  const ConfinedDir& test_dir_;
  const TreeLayout& layout_;
  std::string base_;
  std::string path_;  ///< the node's path from the test directory
  std::string full_;  ///< kFull: the test directory's path, the node's, the name
  bool by_path_;
  std::size_t prefix_len_;
  std::size_t dir_len_ = 0;
  std::string_view name_;
  OwnedConfinedDir dir_;
  std::uint64_t node_ = UINT64_MAX;
};

/// The open directories of a tree node's ancestors, one per level, for the tree phases: a walk
/// in pre- or post-order changes one level at a time, so each directory is opened once, by name
/// in its open parent (mdtest's mkdir(path) walks every component in the kernel instead).
class AncestorDirs {
 public:
  AncestorDirs(const ConfinedDir& test_dir, const TreeLayout& layout, std::string_view base)
      : test_dir_(test_dir), layout_(layout), base_(base) {}
  /// Points `out` at the open directory in which node `node` is named (the test directory for
  /// the root); returns 0 or the errno of opening an ancestor.
  int parent_of(std::uint64_t node, const ConfinedDir*& out) {
    if (node == 0) {
      out = &test_dir_;
      return 0;
    }
    return open(layout_.parent_of(node), layout_.depth_of(node) - 1, out);
  }

 private:
  int open(std::uint64_t node, std::uint32_t level, const ConfinedDir*& out) {
    if (level >= dirs_.size()) {
      dirs_.resize(level + 1);
      nodes_.resize(level + 1, UINT64_MAX);
    }
    if (nodes_[level] != node) {
      const ConfinedDir* parent = nullptr;
      if (const int err = parent_of(node, parent); err != 0) return err;
      name_.clear();
      fmt::format_to(std::back_inserter(name_), "{}.{}", base_, node);
      dirs_[level] = OwnedConfinedDir();
      nodes_[level] = UINT64_MAX;
      int fd = -1;
      if (const int err = parent->try_open_dir(name_, fd); err != 0) return err;
      dirs_[level] = OwnedConfinedDir(UniqueFd(fd), parent->shown(name_));
      nodes_[level] = node;
    }
    out = &dirs_[level];
    return 0;
  }

  const ConfinedDir& test_dir_;
  const TreeLayout& layout_;
  std::string_view base_;
  std::string name_;
  std::vector<OwnedConfinedDir> dirs_;  ///< dirs_[l]: the open node of level l on the path
  std::vector<std::uint64_t> nodes_;    ///< nodes_[l]: which node dirs_[l] is (UINT64_MAX: none)
};

class RankWorker : public PhaseWorker {
 public:
  /// `untimed`: for complete_cut_short(), which acts by descriptor in either mode.
  RankWorker(const RankArgs& args, OwnedConfinedDir test_dir, bool untimed = false)
      : test_dir_(std::move(test_dir)),
        args_(with_dir(args, test_dir_.view())),
        c_(*args.config),
        layout_(c_.layout()),
        base_(tree_base(c_.unique_dir, args.tree_rank)),
        dirs_(args.kind == PhaseKind::kDirCreate || args.kind == PhaseKind::kDirStat ||
              args.kind == PhaseKind::kDirRename || args.kind == PhaseKind::kDirRemove),
        prefix_(c_.paths == PathMode::kFull && !untimed
                    ? ::iobench::plugins::full_prefix(args_.test_dir)
                    : std::string()) {
    name_.reserve(64);
    tree_path_.reserve(prefix_.size() + 256);
    if (args.kind == PhaseKind::kFileCreate && c_.write_bytes > 0) {
      // mdtest's pattern (its default "timestamp" packet): the same bytes in every file of a
      // rank, made once, untimed, as mdtest makes its buffer before the phases.
      buffer_.resize(c_.write_bytes);
      fill_pattern(buffer_, pattern());
    }
    if (args.kind == PhaseKind::kFileRead && c_.read_bytes > 0) {
      buffer_.resize(c_.read_bytes);
      if (c_.verify_read) plan_check();
    }
    if (c_.random && (args.kind == PhaseKind::kDirStat || args.kind == PhaseKind::kFileStat ||
                      args.kind == PhaseKind::kFileRead)) {
      order_ = random_order(args.item_count, args.order_seed);
    }
  }

  /// Untimed: the removals run() did not reach, from the `done`-th on (remove_remaining()).
  void remove_rest(std::uint64_t done) {
    if (args_.kind == PhaseKind::kTreeRemove) {
      AncestorDirs ancestors(args_.test_dir, layout_, base_);
      std::string path;
      std::uint64_t k = 0;
      layout_.for_each_node_post([&](std::uint64_t node) {
        if (k++ < done) return;
        done_ = k - 1;
        if (const int err = tree_op(ancestors, node, false, false, path); err != 0) {
          throw IoError(err, "rmdir", args_.test_dir.shown(path));
        }
      });
      return;
    }
    NodeCursor cursor(args_.test_dir, layout_, base_);
    std::uint64_t k = 0;
    in_tree_order([&](std::uint64_t n) {
      if (k++ < done) return true;
      done_ = k - 1;
      set_name(n);
      cursor.at(layout_.node_of_item(n), name_);
      const bool rmdir = args_.kind == PhaseKind::kDirRemove;
      const int err = rmdir ? cursor.rmdir() : cursor.unlink();
      if (err != 0) fail(err, rmdir ? "rmdir" : "unlink", cursor);
      return true;
    });
  }

  /// Untimed, after `done` renames of item_count: "<item 0>-XX" back to item done-1's name, the
  /// one missing (run_rename()'s ops 0 .. done-1 moved item i to i-1's name).
  void restore_rename(std::uint64_t done) {
    if (done == 0 || done >= args_.item_count) return;
    const std::uint64_t first = layout_.item_number(0);
    const std::uint64_t missing = layout_.item_number(done - 1);
    NodeCursor from_cursor(args_.test_dir, layout_, base_);
    NodeCursor to_cursor(args_.test_dir, layout_, base_);
    set_name(missing);
    const std::string to_name = name_;
    set_name(first);
    name_ += "-XX";
    to_cursor.at(layout_.node_of_item(missing), to_name);
    from_cursor.at(layout_.node_of_item(first), name_);
    done_ = done;
    if (const int err = from_cursor.rename_to(to_cursor); err != 0) {
      fail(err, "rename", from_cursor);
    }
  }

  void run(WorkerContext& ctx) override {
    const bool checks = c_.verify_read && args_.kind == PhaseKind::kFileRead;
    try {
      run_phase(ctx);
    } catch (const IoError&) {
      // The phase fails with what this rank completed (fail() names the count too), and its
      // completed ops count in the phase's time as a worker's that ended well.
      ctx.add_counter(kItemsDoneCounter, done_);
      if (checks) ctx.add_counter(kMismatchesCounter, mismatches_);
      time_by_ops(ctx, last_op_end_ns_);
      throw;
    } catch (...) {
      time_by_ops(ctx, last_op_end_ns_);
      throw;
    }
    const std::uint64_t done = done_;
    ctx.add_counter(kItemsDoneCounter, done);
    if (checks) ctx.add_counter(kMismatchesCounter, mismatches_);
    if (c_.stonewall_ns > 0 &&
        (args_.kind == PhaseKind::kDirCreate || args_.kind == PhaseKind::kFileCreate)) {
      ctx.add_counter(kItemsAtStonewallCounter, stonewall_seen_ ? at_stonewall_ : done);
      ctx.add_counter(kStonewallNsCounter, stonewall_ns_);
    }
    // -Y: inside the phase's time, as mdtest's sync before its closing barrier.
    std::uint64_t end_ns = last_op_end_ns_;
    if (c_.sync && !ctx.stop_requested()) {
      ::sync();
      end_ns = monotonic_ns();
    }
    time_by_ops(ctx, end_ns);
    // mdtest -X reports its errors after the run; here they fail the phase (exit 1) once this
    // worker read what it could. A worker stopped because another one failed first (or a stop
    // signal) only counts its mismatches: the phase fails with the first failure's message.
    if (checks && mismatches_ > 0 && !ctx.stop_requested()) {
      throw Error(fmt::format(
          "data check (verify_read): {} of the {} files read did not hold the data pattern "
          "their writer wrote (rank {}'s, data_seed {}); the first, {}, differs first at byte "
          "offset {}. Files an earlier run made (tree_dir=) need that run's data_seed (its "
          "data_seed attribute) and write_bytes; else the file system returned other data",
          mismatches_, done, args_.name_rank, args_.data_seed, first_bad_path_, first_bad_offset_));
    }
  }

 private:
  /// mdtest times a phase from its loop's start to its end on every rank (the slowest's time
  /// rates it): the phase's wall time is the ranks' first op's start to their last op's end
  /// (`end_ns`: the last completed op's, or the -Y sync's after it), without the runner's
  /// start-up of the workers; a worker with no completed op is in no window.
  void time_by_ops(WorkerContext& ctx, std::uint64_t end_ns) noexcept {
    if (last_op_end_ns_ != 0) {
      ctx.time_phase_by_ops(first_op_ns_, end_ns);
    } else {
      ctx.time_phase_by_ops(0, 0);
    }
  }

  /// Times one completed op (OpTimer::lap()) and keeps its end: the last one's ends the span (a
  /// restart after it, at the stonewall's hold, is no op's).
  void lap(WorkerContext& ctx, std::uint64_t bytes) noexcept {
    timer_.lap(ctx, kItemOp, bytes);
    last_op_end_ns_ = timer_.last_ns();
  }

  /// Leaves in done_ the items (tree directories) completed.
  void run_phase(WorkerContext& ctx) {
    switch (args_.kind) {
      case PhaseKind::kTreeCreate:
      case PhaseKind::kTreeRemove:
        run_tree(ctx);
        break;
      case PhaseKind::kDirCreate:
      case PhaseKind::kDirRemove:
      case PhaseKind::kFileCreate:
      case PhaseKind::kFileRemove:
        run_in_tree_order(ctx);
        break;
      case PhaseKind::kDirStat:
      case PhaseKind::kFileStat:
      case PhaseKind::kFileRead:
        run_in_item_order(ctx);
        break;
      case PhaseKind::kDirRename:
        run_rename(ctx);
        break;
    }
  }

  void set_name(std::uint64_t n) {
    name_.clear();
    append_item_name(dirs_, args_.name_rank, n, name_);
  }

  // The count this rank completed leads the message (mdtest stops at the first failure too).
  [[noreturn]] void fail(int err, const char* call, const NodeCursor& cursor) const {
    throw IoError(err, fmt::format("after {} of {} items, {}", done_, args_.item_count, call),
                  cursor.shown(name_));
  }

  /// mkdir or rmdir of tree node `node`: `by_path`, of its whole path (mdtest's mkdir(path)),
  /// else as one *at call in its open parent (a path from the test directory would cost an open
  /// of the parent and its close per directory). Leaves the node's path relative to the test
  /// directory in `shown` on failure.
  int tree_op(AncestorDirs& ancestors, std::uint64_t node, bool create, bool by_path,
              std::string& shown) {
    if (by_path) {
      layout_.node_path(base_, node, shown);
      tree_path_.assign(prefix_);
      tree_path_ += shown;
      return result_of(create ? ::mkdir(tree_path_.c_str(), 0755) : ::rmdir(tree_path_.c_str()));
    }
    const ConfinedDir* parent = nullptr;
    int err = ancestors.parent_of(node, parent);
    if (err == 0) {
      name_.clear();
      fmt::format_to(std::back_inserter(name_), "{}.{}", base_, node);
      err = create ? parent->try_mkdir(name_, 0755) : parent->try_rmdir(name_);
    }
    if (err != 0) layout_.node_path(base_, node, shown);
    return err;
  }

  void run_tree(WorkerContext& ctx) {
    AncestorDirs ancestors(args_.test_dir, layout_, base_);
    std::string path;
    const bool create = args_.kind == PhaseKind::kTreeCreate;
    bool go = true;
    const auto one = [&](std::uint64_t node) {
      if (!go || !(go = ctx.keep_going())) return;
      if (const int err = tree_op(ancestors, node, create, !prefix_.empty(), path); err != 0) {
        throw IoError(err,
                      fmt::format("after {} of {} tree directories, {}", done_, layout_.dir_count(),
                                  create ? "mkdir" : "rmdir"),
                      args_.test_dir.shown(path));
      }
      lap(ctx, 0);
      ++done_;
    };
    restart_timer(ctx);
    if (create) {
      layout_.for_each_node_pre(one);
    } else {
      layout_.for_each_node_post(one);
    }
  }

  /// One item op on item `n`: by its whole path, or in its node's open directory (NodeCursor).
  void item_op(WorkerContext& ctx, NodeCursor& cursor, std::uint64_t n) {
    set_name(n);
    cursor.at(layout_.node_of_item(n), name_);
    std::uint64_t bytes = 0;
    int err = 0;
    switch (args_.kind) {
      case PhaseKind::kDirCreate:
        if ((err = cursor.mkdir()) != 0) fail(err, "mkdir", cursor);
        break;
      case PhaseKind::kDirRemove:
        if ((err = cursor.rmdir()) != 0) fail(err, "rmdir", cursor);
        break;
      case PhaseKind::kFileRemove:
        if ((err = cursor.unlink()) != 0) fail(err, "unlink", cursor);
        break;
      case PhaseKind::kDirStat:
      case PhaseKind::kFileStat: {
        struct stat st {};
        if ((err = cursor.stat(st)) != 0) fail(err, "stat", cursor);
        break;
      }
      case PhaseKind::kFileCreate:
        bytes = create_file(cursor);
        break;
      case PhaseKind::kFileRead:
        bytes = read_file(cursor);
        break;
      default:
        break;
    }
    lap(ctx, bytes);
  }

  std::uint64_t create_file(const NodeCursor& cursor) {
    int fd = -1;
    // O_EXCL: never an existing name; O_NOFOLLOW is added by open().
    if (const int err = cursor.open(O_CREAT | O_EXCL | O_WRONLY, 0644, fd); err != 0) {
      fail(err, "create", cursor);
    }
    UniqueFd file(fd);
    for (std::size_t done = 0; done < buffer_.size();) {
      const ssize_t n = ::write(fd, buffer_.data() + done, buffer_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail(n < 0 ? errno : ENOSPC, "write", cursor);
      done += static_cast<std::size_t>(n);
    }
    if (c_.fsync && ::fsync(fd) != 0) fail(errno, "fsync", cursor);
    if (::close(file.release()) != 0 && errno != EINTR) fail(errno, "close", cursor);
    return buffer_.size();
  }

  std::uint64_t read_file(const NodeCursor& cursor) {
    int fd = -1;
    if (const int err = cursor.open(O_RDONLY, 0, fd); err != 0) fail(err, "open", cursor);
    UniqueFd file(fd);
    for (std::size_t done = 0; done < buffer_.size();) {
      const ssize_t n = ::read(fd, buffer_.data() + done, buffer_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail(errno, "read", cursor);
      if (n == 0) fail(EIO, "read (short read: end of file before read_bytes)", cursor);
      done += static_cast<std::size_t>(n);
    }
    // mdtest -X: every byte read checked inside the item's time (one pass whatever it finds).
    if (c_.verify_read && !holds_pattern()) {
      if (mismatches_++ == 0) {
        first_bad_path_ = cursor.shown(name_);
        first_bad_offset_ = first_difference();
      }
    }
    return buffer_.size();
  }

  /// The pattern of the rank whose items this worker names: the one it writes (creation), or
  /// the one the writer of the files it reads wrote (mdtest -X's pretend rank).
  [[nodiscard]] IorPattern pattern() const noexcept {
    return IorPattern{.rank = static_cast<std::uint32_t>(args_.name_rank), .seed = args_.data_seed};
  }

  /// A read's bytes are the first read_bytes of what the creation wrote (write_bytes of the
  /// pattern; read_bytes when no write_bytes is given, a run on tree_dir): its whole words are
  /// the pattern's, and the bytes after them those of the written pattern at that place, a word
  /// when the file goes on past it, else the pattern's tail bytes. (mdtest compares them with
  /// the tail of a read_bytes-long pattern instead, which a file longer than the read does not
  /// hold when read_bytes is not a multiple of 8.)
  void plan_check() {
    const std::size_t written = std::max(c_.write_bytes, c_.read_bytes);
    check_words_bytes_ = buffer_.size() / 8 * 8;
    for (std::size_t b = check_words_bytes_; b < buffer_.size(); ++b) {
      const std::size_t k = b - check_words_bytes_;
      if (check_words_bytes_ + 8 <= written) {
        const std::uint64_t w = pattern().word(check_words_bytes_ / 8);
        std::byte bytes[8];
        std::memcpy(bytes, &w, sizeof bytes);
        expected_tail_[k] = bytes[k];
      } else {
        expected_tail_[k] = IorPattern::tail_byte(b);
      }
    }
  }

  [[nodiscard]] bool holds_pattern() const noexcept {
    const std::span<const std::byte> read(buffer_);
    return matches_pattern(read.first(check_words_bytes_), pattern()) &&
           std::memcmp(read.data() + check_words_bytes_, expected_tail_.data(),
                       read.size() - check_words_bytes_) == 0;
  }

  /// The offset of the first byte read that differs from what holds_pattern() expects.
  [[nodiscard]] std::size_t first_difference() const noexcept {
    const std::span<const std::byte> read(buffer_);
    const std::size_t at = first_pattern_difference(read.first(check_words_bytes_), pattern());
    if (at < check_words_bytes_) return at;
    for (std::size_t b = check_words_bytes_; b < read.size(); ++b) {
      if (read[b] != expected_tail_[b - check_words_bytes_]) return b;
    }
    return read.size();
  }

  /// Calls fn(item number) for the first item_count items in mdtest's creation order (the
  /// nodes in pre-order, each node's items in turn) while fn returns true.
  template <typename Fn>
  void in_tree_order(Fn&& fn) const {
    std::uint64_t k = 0;
    bool go = true;
    layout_.for_each_item_node([&](std::uint64_t node) {
      for (std::uint64_t i = 0; go && i < layout_.items_per_dir(); ++i) {
        go = k++ < args_.item_count && fn(node * layout_.items_per_dir() + i);
      }
    });
  }

  /// Times the next op from now and tells the context it begins here (OpTimer::restart() alone
  /// does not), so that --explain=ops splits it over its own span, not over the untimed work
  /// before it (the node opened, the hold at the stonewall).
  void restart_timer(WorkerContext& ctx) noexcept {
    timer_.restart();
    ctx.op_begins(timer_.last_ns());
    if (first_op_ns_ == 0) first_op_ns_ = timer_.last_ns();
  }

  /// The stonewall (-W): the items made when the runner's wear-out began, and when (after the
  /// ranks agreed on the target, as mdtest's stonewall time ends after its MPI_Allreduce). The
  /// wait in keep_going() while they agreed (the runner's hold) is no op's: the next op is timed
  /// from here.
  void note_stonewall(WorkerContext& ctx) {
    if (c_.stonewall_ns == 0 || stonewall_seen_ || !ctx.wearing_out()) return;
    stonewall_seen_ = true;
    at_stonewall_ = done_;
    stonewall_ns_ = monotonic_ns() - start_ns_;
    restart_timer(ctx);
  }

  /// Create and remove: the items in tree order (in_tree_order).
  void run_in_tree_order(WorkerContext& ctx) {
    NodeCursor cursor(args_.test_dir, layout_, base_, prefix_);
    start_ns_ = monotonic_ns();
    restart_timer(ctx);
    in_tree_order([&](std::uint64_t n) {
      if (!ctx.keep_going()) return false;
      note_stonewall(ctx);
      item_op(ctx, cursor, n);
      ++done_;
      return true;
    });
    // A worker already at the wear-out's target ends at its first keep_going() in it.
    note_stonewall(ctx);
  }

  /// Stat and read: item numbers in order (or -R's permutation), as mdtest_stat/mdtest_read.
  void run_in_item_order(WorkerContext& ctx) {
    NodeCursor cursor(args_.test_dir, layout_, base_, prefix_);
    restart_timer(ctx);
    for (; done_ < args_.item_count && ctx.keep_going(); ++done_) {
      item_op(ctx, cursor, layout_.item_number(order_.empty() ? done_ : order_[done_]));
    }
  }

  /// mdtest's rename_dir_test: item 0 to "<item 0>-XX", then each item i to item i-1's name,
  /// and, as the last op, "<item 0>-XX" to the last but one's name: n renames, after which every
  /// item name exists again (the last item itself is never moved).
  void run_rename(WorkerContext& ctx) {
    const std::uint64_t count = args_.item_count;
    // Fewer than two items: nothing to rename (mdtest plans no rename then; a stonewall may
    // leave one).
    if (count < 2) return;
    NodeCursor from_cursor(args_.test_dir, layout_, base_, prefix_);
    NodeCursor to_cursor(args_.test_dir, layout_, base_, prefix_);
    std::string to_name;
    std::string first_moved;
    restart_timer(ctx);
    for (std::uint64_t i = 0; i < count && ctx.keep_going(); ++i, ++done_) {
      const std::uint64_t n = layout_.item_number(i);
      const std::uint64_t first = layout_.item_number(0);
      std::uint64_t from_node = layout_.node_of_item(n);
      std::uint64_t to_node = 0;
      if (i == 0) {
        set_name(n);
        first_moved = name_ + "-XX";
        to_name = first_moved;
        to_node = from_node;
      } else {
        set_name(n - 1);
        to_name = name_;
        to_node = layout_.node_of_item(n - 1);
        if (i == count - 1) {
          name_ = first_moved;
          from_node = layout_.node_of_item(first);
        } else {
          set_name(n);
        }
      }
      to_cursor.at(to_node, to_name);
      from_cursor.at(from_node, name_);
      if (const int err = from_cursor.rename_to(to_cursor); err != 0) {
        fail(err, "rename", from_cursor);
      }
      lap(ctx, 0);
    }
  }

  static RankArgs with_dir(RankArgs args, ConfinedDir dir) {
    args.test_dir = std::move(dir);
    return args;
  }

  OwnedConfinedDir test_dir_;
  RankArgs args_;
  const MdtestConfig& c_;
  TreeLayout layout_;
  std::string base_;
  bool dirs_;
  /// PathMode::kFull: the test directory's path and '/' (full_prefix()); empty for kDirfd.
  std::string prefix_;
  std::string tree_path_;  ///< kFull: the tree directory a tree op acts on (reused)
  std::string name_;
  std::vector<std::byte> buffer_;
  std::vector<std::uint64_t> order_;
  /// verify_read: the read's bytes checked as whole pattern words, the expected bytes after them
  /// (plan_check()), the files that differed and the first one's path and offset.
  std::size_t check_words_bytes_ = 0;
  std::array<std::byte, 8> expected_tail_{};
  std::uint64_t mismatches_ = 0;
  std::string first_bad_path_;
  std::size_t first_bad_offset_ = 0;
  OpTimer timer_;
  std::uint64_t done_ = 0;  ///< items (tree directories) completed so far
  std::uint64_t start_ns_ = 0;
  std::uint64_t first_op_ns_ = 0;     ///< when the first op's timing began (the phase's span)
  std::uint64_t last_op_end_ns_ = 0;  ///< when the last completed op ended (0: none yet)
  bool stonewall_seen_ = false;
  std::uint64_t at_stonewall_ = 0;
  std::uint64_t stonewall_ns_ = 0;
};

}  // namespace

std::uint32_t shift_step(PhaseKind kind) noexcept {
  switch (kind) {
    case PhaseKind::kDirStat:
    case PhaseKind::kDirRename:
    case PhaseKind::kFileStat:
      return 1;
    case PhaseKind::kFileRead:
      return 2;
    case PhaseKind::kDirRemove:
    case PhaseKind::kFileRemove:
      return 3;
    default:
      return 0;
  }
}

std::unique_ptr<PhaseWorker> make_rank_worker(const RankArgs& args, OwnedConfinedDir test_dir) {
  return std::make_unique<RankWorker>(args, std::move(test_dir));
}

std::unique_ptr<PhaseWorker> make_idle_worker() {
  class IdleWorker final : public PhaseWorker {
   public:
    void run(WorkerContext& ctx) override {
      ctx.add_counter(kItemsDoneCounter, 0);
      ctx.time_phase_by_ops(0, 0);  // no op: in no window of the phase's span
    }
  };
  return std::make_unique<IdleWorker>();
}

void complete_cut_short(const RankArgs& args, OwnedConfinedDir test_dir, std::uint64_t done) {
  RankWorker worker(args, std::move(test_dir), true);
  if (args.kind == PhaseKind::kDirRename) {
    worker.restore_rename(done);
  } else {
    worker.remove_rest(done);
  }
}

std::vector<std::uint64_t> random_order(std::uint64_t count, std::uint64_t seed) {
  std::vector<std::uint64_t> order(count);
  for (std::uint64_t i = 0; i < count; ++i) order[i] = i;
  std::mt19937_64 gen(seed);
  for (std::uint64_t n = count; n > 1; --n) {
    std::uniform_int_distribution<std::uint64_t> pick(0, n - 1);
    std::swap(order[n - 1], order[pick(gen)]);
  }
  return order;
}

}  // namespace iobench::plugins::mdtest
