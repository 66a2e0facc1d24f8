#pragma once

/// One filebench thread instance as an iobench worker: it runs its flowop list over and over
/// until the phase ends, with filebench's flowop semantics, timing each flowop as one op.

#include <atomic>
#include <cstdint>
#include <iobench/workload.hpp>
#include <memory>
#include <span>
#include <vector>

#include "plugins/filebench/event_generator.hpp"
#include "plugins/filebench/fileset.hpp"
#include "plugins/filebench/fileset_dirs.hpp"
#include "plugins/filebench/flowop_aio.hpp"
#include "plugins/filebench/flowop_semaphore.hpp"
#include "plugins/filebench/gamma.hpp"
#include "plugins/filebench/shared_memory.hpp"
#include "plugins/filebench/wml_model.hpp"

namespace iobench::plugins::filebench {

/// Counter ids of the run phase.
inline constexpr CounterId kNoFileCounter = 0;  ///< picks that found no file (thread stopped)
/// Threads the wakeup flowops released from a block (a wakeup finding none blocked adds 0).
inline constexpr CounterId kWokenCounter = 1;

/// What the thread instances of a run share for finishoncount/finishonbytes: the I/O flowops'
/// ops and bytes summed over all threads (filebench's controlstats), and whether one of them
/// ended the run.
struct RunTotals {
  std::atomic<std::uint64_t> io_ops{0};
  std::atomic<std::uint64_t> io_bytes{0};
  /// Ops and bytes of the read and write flowops alone (filebench's rcount + wcount and rbytes
  /// + wbytes: what iopslimit and bwlimit without target count).
  std::atomic<std::uint64_t> rw_ops{0};
  std::atomic<std::uint64_t> rw_bytes{0};
  std::atomic<bool> finished{false};  ///< a finishon* flowop reached its value: all threads stop
};

/// A thread instance. `op_ids[i]` is the OpId flowop i of `def` records under; `filesets` the
/// shared states, indexed as WmlModel::filesets (they outlive the worker).
///
/// Semantics (filebench's flowop library, system call for system call): createfile picks a file
/// that does not exist, stats its parent directory (an fstat of the cached directory, as
/// filebench's fileset_openfile stats it before any O_CREAT open) and creates it
/// (O_CREAT|O_EXCL|O_NOFOLLOW); openfile and statfile pick one that exists (in rotation,
/// skipping files other threads hold); statfile on an fd= that is open is one fstat of it;
/// dsync opens with O_SYNC (filebench's FLOW_ATTR_DSYNC), aiowrite's file too; deletefile
/// unlinks the file on its fd or picks one; a picked file is held until closefile. appendfile
/// writes iosize bytes at the end, appendfilerand a uniform 0..iosize-2 (filebench's draw; 0: an
/// op of no bytes and no call, its file not even opened); readwholefile reads from offset 0 to
/// EOF in iosize blocks (no iosize: in blocks of the working set, the file's drawn size or
/// workingset=, so a file of its drawn size is one read and the read meeting EOF);
/// writewholefile writes the size the fileset drew for the file on srcfd (else the working set
/// of the file on fd) from the current offset in whole blocks of min(size, iosize) (no iosize:
/// the working set), so a 10000-byte size at iosize 4k writes 3 x 4096; a whole-file block above
/// memsize is an IoError (EINVAL) as filebench's; read and write move
/// iosize at the descriptor's offset (a read at EOF rewinds) or, with random, at a random
/// iosize-aligned offset below the drawn size; fsync; delay sleeps value seconds. A flowop on a
/// descriptor that is not open opens a file of its fileset first (untimed). A pick waits while
/// every file of the set is busy (untimed, as filebench's); when no file in the needed state is
/// free the thread stops and counts it (kNoFileCounter); under `set mode quit firstdone` it also
/// ends the run for every thread (filebench's FILEBENCH_NORSC in that mode), under timeout
/// filebench would stop the run with an error, under alldone only that thread stops.
/// finishoncount ends the run (every thread, as filebench's `set mode quit firstdone`) once its
/// target flowop has done value ops in this thread, or, without target, all I/O flowops of all
/// threads together; finishonbytes once they moved more than value bytes. Both record an op of
/// no bytes per check. The rate limits (filebench's flowoplib_*limit) take events from the run's
/// EventGenerator: eventlimit one per call; opslimit the ops of its target in this thread (no
/// target: all threads' I/O ops), iopslimit their reads and writes, bwlimit one event per MiB
/// they moved (rounded up), each counted since its previous call (its first call only notes the
/// count) against a per-thread bucket, blocking only when the bucket is below 0. A limit records
/// an op (its time blocked) except on its first call; without eventgen (or rate=0) limits do
/// nothing and record nothing, as filebench's. hog loops value times storing 1 to the thread's
/// buffer, one op. semblock and sempost work on FlowopSemaphore (flowop_semaphore.hpp), one op
/// each (its time blocked; none when the run ends while it waits). block waits on its
/// FlowopBlock (flowop_block.hpp) until a wakeup naming it releases it, one op (its time blocked;
/// none when the run ends first, so no thread stays blocked past the run); wakeup releases the
/// threads blocked in every thread instance's block of its target's name, one op per target
/// instance as filebench's, adding those it released to kWokenCounter. listdir picks a directory of
/// its fileset in rotation (filebench's directory rotor, busy ones skipped) and reads all its
/// entries, "." and ".." included, with glibc opendir's calls (list_dir()); its bytes are
/// filebench's: per entry the name's length + sizeof(struct dirent) - 1 (neither read nor write in
/// the IO Summary). fsyncset fsyncs every descriptor the thread has open on a file of its fileset,
/// each an op of its own (none open: no op). makedir picks a leaf directory of its fileset that
/// does not exist (leaf directories are picked as files are, with their own rotors) and makes it;
/// removedir picks one that exists and removes it; neither moves bytes (both are I/O flowops, as
/// filebench's). aiowrite starts a write of iosize at a random iosize-aligned offset below the
/// workingset (else the drawn size) of the file on its fd (opened as read's), through AioWriter
/// (flowop_aio.hpp): the engine file of that fd is opened at its first aiowrite, with that flowop's
/// directio and dsync; the op is the submission and counts iosize bytes written, as filebench's.
/// aiowait waits for every aiowrite of the thread in flight (one op, also with none in flight);
/// closefile first waits for its fd's, and the thread's end for all (untimed). An I/O failure
/// throws IoError naming the flowop.
class FlowopThread final : public PhaseWorker {
 public:
  /// `events`: the run's event generator (outlives the worker), or nullptr without eventgen;
  /// `aio_engine`: the asynchronous engine of the aiowrite flowops (outlives the worker), or
  /// nullptr when the file has none; `quit`: the file's `set mode quit` (what a thread finding no
  /// file does).
  FlowopThread(const ThreadDef& def, std::vector<OpId> op_ids,
               std::span<FilesetState* const> filesets, std::span<const FilesetDef> fileset_defs,
               ConfinedDir run_dir, std::uint64_t seed, RunTotals& totals,
               EventGenerator* events = nullptr, SemaphoreLinks semaphores = {},
               const Engine* aio_engine = nullptr, QuitMode quit = QuitMode::kTimeout);
  ~FlowopThread() override;
  FlowopThread(const FlowopThread&) = delete;
  FlowopThread& operator=(const FlowopThread&) = delete;

  void run(WorkerContext& ctx) override;

 private:
  struct Slot {
    int fd = -1;
    std::uint32_t fileset = kNoFileset;
    std::uint32_t file = 0;
    bool exists = false;  ///< whether the held file exists (false after deletefile on it)
  };
  enum class Outcome : std::uint8_t { kDone, kNoFile, kFinished };
  /// Runs flowop `index` of the thread's list once.
  Outcome step(WorkerContext& ctx, std::size_t index);
  /// Whether a finishon* flowop `f` reached its value (filebench: ops >= value, bytes > value).
  [[nodiscard]] bool finish_reached(const FlowopDef& f) const;
  /// A failed call of list_dir(): its name and errno (err 0: none failed).
  struct ListDirError {
    const char* call = "";
    int err = 0;
  };
  /// Reads the entries of directory `path` (relative to the run directory), adding filebench's
  /// bytes per entry (name length + sizeof(struct dirent) - 1) to `bytes`.
  /// The calls of glibc's opendir/readdir/closedir (filebench's FB_OPENDIR/FB_READDIR): an
  /// open beneath the run directory (O_RDONLY|O_NONBLOCK|O_DIRECTORY|O_CLOEXEC), one fstat
  /// sizing the buffer as glibc does (st_blksize, at least 32 KiB, at most 1 MiB), getdents64
  /// until it returns 0 or fails with ENOENT (a directory removed meanwhile: glibc's readdir
  /// ends there too), close; no fcntl (fdopendir's two are not made).
  ListDirError list_dir(const std::string& path, std::uint64_t& bytes);
  /// fsyncset (flowop `index`): one timed fsync op per open descriptor on a file of its fileset,
  /// in fd order; none open: no op.
  void fsync_set(WorkerContext& ctx, std::size_t index);
  /// Runs flowop `index` if it is a rate limit, semblock/sempost, block/wakeup or hog (true),
  /// else false.
  bool other_step(WorkerContext& ctx, std::size_t index);
  /// makedir/removedir `f`: picks a leaf directory (false: none), sets `start`, mkdir/rmdir.
  bool leafdir_op(const FlowopDef& f, std::uint64_t& start);
  /// semblock and sempost (flowop `index`; flowop_limits.cpp).
  void semaphore_step(WorkerContext& ctx, std::size_t index);
  /// block and wakeup (flowop `index`; flowop_limits.cpp).
  void block_step(WorkerContext& ctx, std::size_t index);
  /// The rate-limit flowops and hog (flowop `index`; flowop_limits.cpp).
  void limit_step(WorkerContext& ctx, std::size_t index);
  void hog(WorkerContext& ctx, std::size_t index);
  /// What limit `f` counts now: its target's ops or bytes in this thread, or the run's totals.
  [[nodiscard]] std::uint64_t limit_count(const FlowopDef& f) const;
  /// Records one op of flowop `index` (no bytes) from `start` to now.
  void record_other(WorkerContext& ctx, std::size_t index, std::uint64_t start);
  /// keep_going() and no thread ended the run.
  [[nodiscard]] bool running() const;
  /// Picks and opens (or creates) a file into `slot`; `start` is set after the pick, so the
  /// open alone is timed (as filebench times it). False when no file could be picked.
  bool open_slot(const FlowopDef& f, Slot& slot, bool create, std::uint64_t& start);
  Slot& slot_for_io(const FlowopDef& f, std::uint32_t fd, bool& ok);
  /// The descriptor slot flowop `f` works on: its fd=, or with opennext and no fd= the thread's
  /// next slot (kMaxFd-1 down to 0, wrapping: filebench's tf_fdrotor).
  std::uint32_t fd_slot(const FlowopDef& f);
  /// Picks a file of `f`'s fileset: by indexed= (fixed or drawn), else for an open with
  /// opennext from the thread's rotor of that set, else from the set's rotor.
  std::optional<std::uint32_t> pick_for(const FlowopDef& f, bool existing, bool open);
  void close_slot(Slot& slot);
  /// The byte-moving flowops (appendfile..writewholefile) on `slot`: bytes moved (flowop_io.cpp).
  std::uint64_t transfer(const FlowopDef& f, Slot& slot, std::uint64_t iosize);
  /// The thread's stream `key` of var_rngs_, made from the worker's seed mixed with `seed` at
  /// its first use.
  Rng& stream_of(std::uint64_t key, std::uint64_t seed);
  /// f's iosize for this op: fixed, or drawn from its randvar or cvar (this thread's stream of
  /// it).
  /// Throws IoError (EINVAL) for a draw of 0 or above memsize, as filebench's iobufsetup fails.
  std::uint64_t draw_iosize(const FlowopDef& f);
  /// aiowrite (flowop `index`) on `slot` (flowop_io.cpp): submits, sets `start`; bytes written.
  std::uint64_t aio_write(std::size_t index, Slot& slot, std::uint64_t iosize,
                          std::uint64_t& start);
  /// A random iosize-aligned offset for `f` on `slot`: uniform in [0, wss - iosize], wss the
  /// workingset or else the file's drawn size (IoError EINVAL if that is below iosize).
  std::uint64_t random_offset(const FlowopDef& f, const Slot& slot, std::uint64_t iosize);
  /// The working set of `f` on `slot`: workingset= or else the file's drawn size (filebench's
  /// wss of flowoplib_filesetup).
  [[nodiscard]] std::uint64_t working_set(const FlowopDef& f, const Slot& slot) const;
  /// `chunk` bytes as one I/O of readwholefile/writewholefile. Above a given memsize= an
  /// IoError (EINVAL), as filebench's iobufsetup fails; above the default memsize (1 MiB; where
  /// filebench's default 0 makes a buffer of the I/O's size) the chunk is the whole buffer.
  [[nodiscard]] std::size_t whole_chunk(const FlowopDef& f, std::uint64_t chunk) const;
  /// appendfilerand's bytes for `iosize` (>= 1): 0..iosize-2, filebench's fb_random64(iosize, 1).
  std::uint64_t append_size(std::uint64_t iosize);
  /// The loop over the flowop list until the run ends (run() then drains the aiowrites).
  void run_flowops(WorkerContext& ctx);
  /// write(2) of `n` bytes from the buffer (at `offset` unless negative), all or an IoError.
  void write_all(const FlowopDef& f, const Slot& slot, std::size_t n, off_t offset);
  [[noreturn]] void fail(const FlowopDef& f, const char* call, int err) const;
  [[nodiscard]] std::uint64_t drawn_size(const Slot& slot) const;

  const ThreadDef& def_;
  std::vector<OpId> op_ids_;
  std::span<FilesetState* const> filesets_;
  std::span<const FilesetDef> fileset_defs_;
  ConfinedDir run_dir_;
  /// How the flowops name their files and leaf directories: an open is one openat2 of the
  /// whole path; stat, unlink, create, mkdir and rmdir one call on the name in its cached
  /// parent directory (fileset_dirs.hpp).
  FilesetDirs dirs_;
  Rng rng_;
  /// filebench's tf_mem: memsize bytes, 'f' after a first line "iobench pid=P tid=T"\n.
  /// Its memsize bytes begin at a 4096-byte boundary inside buffer_storage_, so a directio
  /// flowop's O_DIRECT transfer from it is aligned.
  std::vector<char> buffer_storage_;
  SharedMapping ism_;  ///< the buffer's memory with useism (MAP_SHARED), else empty
  std::span<char> buffer_;
  std::vector<Slot> slots_;
  std::uint32_t fd_rotor_ = 0;              ///< opennext's descriptor rotor (0: start over)
  std::vector<std::uint32_t> open_rotors_;  ///< opennext's rotor of each fileset (this thread)
  WorkerContext* ctx_ = nullptr;            ///< set by run()
  RunTotals& totals_;
  /// Ops and bytes of each flowop (by index in def_.flowops) in this thread instance.
  std::vector<std::uint64_t> ops_done_;
  std::vector<std::uint64_t> bytes_done_;
  EventGenerator* events_;
  /// Per limit flowop (by index): filebench's fo_tputlast (the count at its last call; 0: not
  /// called yet) and fo_tputbucket (ops or bytes paid for and not yet done, below 0 when owed).
  struct LimitState {
    std::uint64_t last = 0;
    std::int64_t bucket = 0;
  };
  std::vector<LimitState> limit_state_;
  SemaphoreLinks semaphores_;
  std::unique_ptr<AioWriter> aio_;  ///< the thread's aiowrites; null without aio engine
  QuitMode quit_;
  std::uint64_t seed_;  ///< the worker's seed (the randvars' streams start from it)
  /// Per randvar (key RandVarDef::id) and cvar (key kCvarStreamKey + CvarDef::id) this thread
  /// drew from: its own stream.
  std::vector<std::pair<std::uint64_t, Rng>> var_rngs_;
  std::vector<char> dirent_buffer_;  ///< listdir's getdents64 buffer (glibc's DIR buffer)
  static constexpr std::uint64_t kCvarStreamKey = 1ULL << 32;
};

}  // namespace iobench::plugins::filebench
