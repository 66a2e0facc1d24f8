#pragma once

/// The compact, validated form of a dbench loadfile that clients replay: one Instruction per
/// operation or directive line, with paths, strings, statuses and handle numbers interned into
/// tables. Built by parse_loadfile() (loadfile_parser.hpp), whole, or a window at a time as a
/// replay reads its loadfile (LoadfileStream).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/dbench/loadfile_index.hpp"

namespace iobench::plugins::dbench {

/// What an instruction does. The first kTabulatedOps values are dbench's operations in the order
/// of dbench 4.00's summary table, so an OpCode is also the OpId recorded for it.
enum class OpCode : std::uint8_t {
  kNtCreateX,
  kClose,
  kRename,
  kUnlink,
  kDeltree,
  kRmdir,
  kMkdir,
  kQpathinfo,  ///< QUERY_PATH_INFORMATION
  kQfileinfo,  ///< QUERY_FILE_INFORMATION
  kQfsinfo,    ///< QUERY_FS_INFORMATION
  kSfileinfo,  ///< SET_FILE_INFORMATION
  kFind,       ///< FIND_FIRST
  kWriteX,
  kReadX,
  kLockX,
  kUnlockX,
  kFlush,
  kSleep,         ///< the 4.00 "Sleep usec status" operation and the later SLEEP directive
  kLoopBegin,     ///< LOOP n; `a` = index of the matching kLoopEnd
  kLoopEnd,       ///< ENDLOOP; `a` = index of the matching kLoopBegin
  kRepeat,        ///< REPEAT n: the next instruction (always an operation) runs n times
  kWritePattern,  ///< WRITEPATTERN text; `a` = string id
  kRandomString,  ///< RANDOMSTRING idx template; `a` = slot 0-9, `b` = string id
};

/// Number of operations in dbench's table (NTCreateX ... Flush).
inline constexpr std::size_t kTabulatedOps = 17;

/// True for the kTabulatedOps operations that are timed and tabulated.
[[nodiscard]] constexpr bool is_tabulated(OpCode op) noexcept {
  return static_cast<std::size_t>(op) < kTabulatedOps;
}

/// How many numeric arguments (Instruction::value slots) operation `op` has.
[[nodiscard]] constexpr std::size_t value_count(OpCode op) noexcept {
  switch (op) {
    case OpCode::kFind:
    case OpCode::kWriteX:
    case OpCode::kReadX:
      return 3;
    case OpCode::kNtCreateX:
    case OpCode::kLockX:
    case OpCode::kUnlockX:
      return 2;
    case OpCode::kUnlink:
    case OpCode::kQpathinfo:
    case OpCode::kQfileinfo:
    case OpCode::kQfsinfo:
    case OpCode::kSfileinfo:
    case OpCode::kSleep:
      return 1;
    default:
      return 0;
  }
}

/// The argument position (0-based, after the op name) of value slot `slot` of `op`: the slot
/// index, plus one for operations whose first argument is a path or a handle.
[[nodiscard]] constexpr std::size_t value_position(OpCode op, std::size_t slot) noexcept {
  return slot + (op == OpCode::kQfsinfo || op == OpCode::kSleep ? 0 : 1);
}

/// The row label of `op` in dbench 4.00's table ("NTCreateX", "Qpathinfo", ...); for the
/// directives their loadfile keyword.
[[nodiscard]] std::string_view table_name(OpCode op) noexcept;
/// The spelling of `op` in a loadfile ("NTCreateX", "QUERY_PATH_INFORMATION", "LOOP", ...).
[[nodiscard]] std::string_view loadfile_name(OpCode op) noexcept;
/// The kTabulatedOps table names in table order.
[[nodiscard]] const std::array<std::string_view, kTabulatedOps>& table_op_names() noexcept;

/// The expected outcome of an operation, collapsed as dbench's fileio backend does.
enum class Expect : std::uint8_t {
  kOk,       ///< NT_STATUS_OK, a 0x status equal to 0, or SUCCESS
  kFailure,  ///< any other NT_STATUS_* or 0x status, or ERROR
  kAny,      ///< "*": not checked
};

/// Which loadfile dialect a file is written in.
enum class LoadfileFormat : std::uint8_t {
  kAuto,     ///< decide from the first operation line
  kNbench,   ///< dbench 3/4 (NBench): quoted paths, status last, optional timestamps
  kDbench2,  ///< dbench 2: unquoted paths, no status; handle -1 marks a failed open
};

/// One loadfile line in executable form (48 bytes), as Program encodes and decodes it.
///
/// Field use by op: path ops keep the path id in `a` (Rename: old in `a`, new in `b`); handle ops
/// keep the dense handle id in `a` (NTCreateX: path in `a`, handle in `b`, kNoId for dbench 2's
/// handle -1). `value` holds the numeric arguments in loadfile order after the path/handle ones
/// (e.g. WriteX: offset, size, expected size); a value whose flag bit is set is instead an index
/// into Loadfile::exprs, evaluated per client at run time.
struct Instruction {
  std::array<std::int64_t, 3> value{};
  std::int64_t timestamp_ns = -1;  ///< the leading timestamp; < 0 when absent (or 0.0, as dbench)
  std::uint32_t line = 0;          ///< 1-based line in the loadfile
  std::uint32_t a = kNoId;
  std::uint32_t b = kNoId;
  std::uint16_t status = 0;  ///< index into Loadfile::statuses (the status text, for messages)
  OpCode op = OpCode::kClose;
  std::uint8_t flags = 0;  ///< kValueIsExpr << i, plus the Expect in bits 4-5

  /// Flag bit of value slot 0; slot i uses kValueIsExpr << i.
  static constexpr std::uint8_t kValueIsExpr = 1;
  /// True if value[i] is an index into Loadfile::exprs rather than the value itself.
  [[nodiscard]] bool value_is_expr(std::size_t i) const noexcept {
    return (flags & (kValueIsExpr << i)) != 0;
  }
  /// The expected outcome encoded by the status.
  [[nodiscard]] Expect expect() const noexcept { return static_cast<Expect>((flags >> 4) & 3); }
  /// Stores the expected outcome, keeping the value flags.
  void set_expect(Expect e) noexcept {
    flags = static_cast<std::uint8_t>((flags & 0x0f) | (static_cast<unsigned>(e) << 4));
  }
  /// Field by field: what the encoding must give back unchanged.
  friend bool operator==(const Instruction&, const Instruction&) = default;
};

/// The instructions of a loadfile in a compact byte encoding: an op byte, a flags byte, the
/// status and only the fields an instruction uses, as LEB128 varints (client.txt: about 9 bytes a
/// line where a plain Instruction takes 48). Lines are deltas (absent when 1); the expected size
/// of ReadX/WriteX is stored as its difference from the size (nearly always 0). Decoded one
/// instruction at a time (Cursor), with a checkpoint every kCheckpointEvery instructions for
/// random access (operator[], LOOP jumps). Append-only, except that the last instruction may be
/// dropped once (pop_back), a LOOP's jump target set later (set_loop_end), and the instructions
/// before a point forgotten (drop_before: a replay that reads its loadfile as it goes keeps a
/// window, LoadfileStream); indexes count from the first instruction ever appended.
class Program {
 public:
  /// Instructions between two checkpoints: random access decodes at most this many.
  static constexpr std::size_t kCheckpointEvery = 32;

  /// Walks a program in order, decoding each instruction once; jumps through the checkpoints.
  class Cursor {
   public:
    explicit Cursor(const Program& program) noexcept : program_(&program) {}
    /// Instruction `i`, decoded. O(1) for the current instruction and the next one, else
    /// O(kCheckpointEvery). The reference stays valid until the next call. REQUIRES: i < size().
    [[nodiscard]] const Instruction& at(std::size_t i) noexcept;

   private:
    void seek(std::size_t i) noexcept;
    const Program* program_;
    std::size_t index_ = static_cast<std::size_t>(-1);  ///< index of current_ (none yet)
    std::size_t next_offset_ = 0;                       ///< where instruction index_ + 1 starts
    Instruction current_{};
  };

  /// Input iterator over the decoded instructions (for range-for).
  class Iterator {
   public:
    using value_type = Instruction;
    using difference_type = std::ptrdiff_t;
    Iterator(const Program& program, std::size_t i) noexcept : cursor_(program), i_(i) {}
    [[nodiscard]] const Instruction& operator*() noexcept { return cursor_.at(i_); }
    Iterator& operator++() noexcept {
      ++i_;
      return *this;
    }
    [[nodiscard]] bool operator!=(const Iterator& other) const noexcept { return i_ != other.i_; }

   private:
    Cursor cursor_;
    std::size_t i_;
  };

  /// Instructions appended so far, the forgotten ones included.
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
  /// The first instruction still held (0 unless drop_before() forgot some).
  [[nodiscard]] std::size_t first() const noexcept { return first_; }
  /// Instruction `i`, decoded (O(kCheckpointEvery)). REQUIRES: i < size().
  [[nodiscard]] Instruction operator[](std::size_t i) const noexcept { return Cursor(*this).at(i); }
  /// The last instruction. REQUIRES: !empty().
  [[nodiscard]] Instruction back() const noexcept { return (*this)[count_ - 1]; }
  [[nodiscard]] Iterator begin() const noexcept { return {*this, 0}; }
  [[nodiscard]] Iterator end() const noexcept { return {*this, count_}; }

  /// Appends `ins`. REQUIRES: ins.line >= back().line; timestamp_ns >= -1.
  void push_back(const Instruction& ins);
  /// Drops the last instruction. REQUIRES: !empty(), and no other pop_back since the last
  /// push_back.
  void pop_back() noexcept;
  /// Sets `a` (the index of its ENDLOOP) of instruction `i`. REQUIRES: it is a kLoopBegin,
  /// i >= first().
  void set_loop_end(std::size_t i, std::uint32_t end) noexcept;
  /// Forgets the instructions before `i`, in whole checkpoint blocks (so some before `i` may be
  /// kept), never the last one (pop_back). Indexes of the rest do not change; a Cursor must
  /// not be used at an index before first() afterwards. REQUIRES: i <= size().
  void drop_before(std::size_t i);
  /// Gives back the unused capacity of the checkpoints (that of the bytes is never touched).
  void shrink_to_fit();
  /// Bytes of memory held: the encoding's size (its unused capacity is never written, so it is
  /// address space, not memory) and the checkpoints' capacity.
  [[nodiscard]] std::size_t memory_bytes() const noexcept;

 private:
  struct Checkpoint {
    std::size_t offset = 0;  ///< where instruction k * kCheckpointEvery starts
    std::uint32_t line = 0;  ///< the line of the instruction before it (0 for the first)
  };
  /// Decodes the instruction at `offset`, whose predecessor is on `prev_line`; returns the offset
  /// after it.
  std::size_t decode(std::size_t offset, std::uint32_t prev_line, Instruction& out) const noexcept;

  /// bytes_[o - byte_base_] is the byte at offset `o` of the whole encoding.
  [[nodiscard]] const std::uint8_t* at_offset(std::size_t o) const noexcept {
    return bytes_.data() + (o - byte_base_);
  }
  /// The checkpoint of instruction `i`'s block. REQUIRES: i >= first_.
  [[nodiscard]] const Checkpoint& checkpoint_of(std::size_t i) const noexcept {
    return checkpoints_[i / kCheckpointEvery - first_ / kCheckpointEvery];
  }

  std::vector<std::uint8_t> bytes_;      ///< the encoding from byte_base_ on
  std::vector<Checkpoint> checkpoints_;  ///< from instruction first_'s on (offsets absolute)
  std::size_t first_ = 0;                ///< first instruction held, a multiple of the block
  std::size_t byte_base_ = 0;            ///< offset of bytes_[0] in the whole encoding
  std::size_t count_ = 0;
  std::size_t last_offset_ = 0;         ///< where the last instruction starts
  std::uint32_t last_line_ = 0;         ///< line of the last instruction
  std::uint32_t line_before_last_ = 0;  ///< line of the one before it
};

/// A value modifier expression (dbench 4.x/5.0 "*" and "+" values), e.g. `*/0x1000%5000000`.
/// Evaluated left to right in unsigned 64-bit arithmetic.
struct ValueExpr {
  enum class Base : std::uint8_t {
    kRandom,    ///< "*": a random 64-bit value
    kPrevious,  ///< "+": the value this argument position had on the previous line (0 at first)
  };
  Base base = Base::kRandom;
  std::uint8_t position = 0;     ///< argument position (0-based, after the op name) for kPrevious
  std::uint32_t first_step = 0;  ///< index of its first step in Loadfile::expr_steps
  std::uint32_t step_count = 0;  ///< number of steps, applied in order
};

/// One qualifier of a ValueExpr: `/y` align down, `%y` modulo, `+y` add.
struct ExprStep {
  enum class Kind : std::uint8_t { kAlign, kModulo, kAdd };
  enum class Operand : std::uint8_t {
    kConstant,
    kClientId,    ///< "child": the 0-based client id
    kNumClients,  ///< "num_children": the number of clients of the run
  };
  Kind kind = Kind::kAdd;
  Operand operand = Operand::kConstant;
  std::uint64_t constant = 0;
};

/// A path as written in the loadfile, after `\` became `/` (it starts with '/').
/// A path containing "client1" is rewritten per client (client<id>); a template contains the byte
/// kRandomRef followed by a digit where a RANDOMSTRING `$n` is substituted at run time.
struct PathEntry {
  std::string text;
  bool is_template = false;
};

/// Marks a `$n` reference to a RANDOMSTRING slot inside PathEntry::text.
inline constexpr char kRandomRef = '\x01';

/// An operation name the parser skipped because unknown_ops was "warn".
struct UnknownOp {
  std::string name;
  std::uint64_t count = 0;
  std::uint32_t first_line = 0;
};

/// Figures about a parsed loadfile (one pass).
struct LoadfileStats {
  std::uint64_t text_lines = 0;                         ///< lines in the file
  std::array<std::uint64_t, kTabulatedOps> op_lines{};  ///< operation lines per table op
  std::uint64_t sleep_lines = 0;
  std::uint64_t directive_lines = 0;
  bool has_timestamps = false;
  bool has_expr_sizes = false;        ///< some ReadX/WriteX size is a modifier expression
  std::uint64_t max_write_bytes = 0;  ///< largest constant WriteX size
  std::uint64_t max_read_bytes = 0;   ///< largest constant ReadX size
  /// Upper bound of the file data one client writes in one pass, for the free-space check: per
  /// path, the 4 KiB blocks its writes touch (a write at a constant offset touches the same
  /// blocks every time, so a 16 KiB write at 5 GiB into a sparse file counts 16 KiB, not 5 GiB;
  /// one at a random offset below a bound counts the blocks up to the bound), plus, for writes
  /// whose place is unknown before running (a "+n" offset, a template path), their sizes times
  /// their executions per pass.
  std::uint64_t written_bytes = 0;
  std::uint64_t unknown_lines = 0;
  /// Some Rmdir or Rename names a path every client shares (one without "client1"): a
  /// directory a client has open may then be removed by another client.
  bool removes_shared_dirs = false;
  std::vector<UnknownOp> unknown_ops;  ///< in order of first appearance
};

/// Which file a loadfile was read from, as stat(2) saw it when it was opened: a replay that
/// reads the file again (LoadfileStream) checks that it is still the one validated.
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::int64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};

/// A parsed, validated loadfile.
struct Loadfile {
  std::string name;     ///< the file name used in messages
  FileIdentity source;  ///< the file it was read from (parse_loadfile_file); zero for a text
  LoadfileFormat format = LoadfileFormat::kNbench;
  Program code;
  std::vector<PathEntry> paths;
  std::vector<std::string> strings;   ///< WRITEPATTERN and RANDOMSTRING texts
  std::vector<std::string> statuses;  ///< distinct status texts ("NT_STATUS_OK", "(none)")
  std::vector<std::int64_t> handles;  ///< loadfile handle number of each dense handle id
  /// Handle number -> dense id (keyed through `handles`) and path -> path id (keyed through
  /// `paths`): the parse's lookups, kept so that a replay of a validated file (LoadfileStream)
  /// finds its ids in them, read-only, instead of building them again.
  HandleIndex handle_index;
  PathIndex path_index;
  std::vector<ValueExpr> exprs;
  std::vector<ExprStep> expr_steps;
  /// First components of every path (e.g. "clients"): what a run creates at the top of the base
  /// directory, for cleanup. May contain "client1", rewritten per client like paths.
  std::vector<std::string> top_level_names;
  /// Per-client roots: for each path with a component containing "client1", the path up to and
  /// including that component (e.g. "/clients/client1"). Cleanup removes these per client, in
  /// parallel, before removing the top-level names.
  std::vector<std::string> client_roots;
  LoadfileStats stats;

  /// Bytes this object holds on the heap plus its own size (capacities, not sizes).
  [[nodiscard]] std::size_t memory_bytes() const noexcept;
};

}  // namespace iobench::plugins::dbench
