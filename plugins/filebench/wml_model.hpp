#pragma once

/// The model a filebench Workload Model Language (.f) file is parsed into: its filesets, its
/// processes with their threads and flowops, and the run length. Only what the interpreter
/// models is representable; the parser refuses the rest (wml_parser.hpp).

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::plugins::filebench {

/// A place in a .f file: 1-based line and column, and which file (an `include` reads others).
struct WmlPosition {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
  std::uint32_t file = 0;  ///< index in WmlModel::sources (0: the main file)
};

/// A file the model was parsed from: the main .f file, then each file an `include` read.
struct WmlSource {
  std::string name;  ///< the path as messages show it
  /// " (included from FILE:LINE, from FILE:LINE)" up to the main file; "" for the main file.
  std::string included_from;
};

/// One random variable's parameters, as filebench's randdist_init reads them.
struct RandVarDef {
  enum class Type : std::uint8_t { kUniform, kGamma, kTabular };
  /// A randtable row {percent, min, max}: `percent` of the draws fall uniformly in [min, max).
  struct Row {
    std::uint32_t percent = 0;
    double min = 0;
    double max = 0;
  };
  std::string name;      ///< the variable, without '$'
  std::uint32_t id = 0;  ///< its place among the file's randvars (each its own stream)
  Type type = Type::kGamma;
  double mean = 0;          ///< mean of the draws; tabular: 0 takes the table's own mean
  double shape = 1.5;       ///< gamma: the shape (filebench's gamma= is in thousandths: 1500)
  std::uint64_t min = 0;    ///< the draws' lowest value (the distribution is shifted by it)
  std::uint64_t round = 0;  ///< draws are rounded to the nearest multiple of it; 0: not rounded
  std::uint64_t seed = 0;   ///< mixed into the variable's stream (filebench's rand48 seed)
  std::vector<Row> table;   ///< tabular: its rows, percents adding to 100
  WmlPosition where;
};

/// A custom variable, `cvar(type=T, parameters=NAME:VALUE;..., min=, max=, round=)` as filebench
/// 1.5 ships them (its cvars/ libraries), drawn per file (size=) or per op (iosize=) by
/// draw_cvar (cvar.hpp).
struct CvarDef {
  enum class Type : std::uint8_t {
    kGamma,
    kUniform,
    kNormal,
    kExponential,
    kErlang,
    kLognormal,
    kTriangular,
    kWeibull
  };
  Type type = Type::kGamma;
  /// The type's parameters in this order, with filebench's names and defaults: gamma mean (4096),
  /// gamma (the shape, 1.5); uniform lower (0), upper (1); normal mean (0), sigma (1);
  /// exponential mean (1); erlang shape (1, whole), rate (1: filebench's rds_erlang takes it as
  /// the mean of the draws); lognormal shape (1: the sigma of the log), scale (1: the mean of the
  /// log); triangular lower (0), upper (1), mode (0.5); weibull shape (1), scale (1).
  std::array<double, 3> p{};
  double min = 0;           ///< a draw below is min (filebench's default: the least double > 0)
  double max = 0x1p+64;     ///< a draw above is max
  std::uint64_t round = 0;  ///< a draw is rounded to the nearest multiple of it first; 0: not
  std::uint32_t id = 0;     ///< its place among the file's cvars (each its own stream per thread)
  WmlPosition where;
};

/// A file size: fixed bytes, a gamma distribution (filebench's cvar-gamma: shape `gamma`,
/// scale mean / gamma), another cvar, or a randvar, drawn once per file.
struct SizeSpec {
  enum class Kind { kFixed, kGamma, kRandVar, kCvar };
  Kind kind = Kind::kFixed;
  std::uint64_t fixed_bytes = 0;
  double mean_bytes = 0;                      ///< kGamma, kCvar: the distribution's mean, bytes
  double gamma = 0;                           ///< kGamma: its shape (> 0)
  std::shared_ptr<const RandVarDef> randvar;  ///< kRandVar: the variable (randvar.hpp draws it)
  /// kCvar: the variable (cvar.hpp draws it); kGamma from a cvar: the same gamma as a CvarDef,
  /// for an iosize= taking it.
  std::shared_ptr<const CvarDef> cvar;
};

/// `define fileset` (or `define file`: one file, no directories).
struct FilesetDef {
  std::string name;
  bool single_file = false;  ///< `define file`
  SizeSpec size;
  std::uint64_t entries = 1;       ///< files in the set (0 with leafdirs and no entries=)
  std::uint64_t leafdirs = 0;      ///< empty leaf directories for makedir/removedir
  double dir_width = 0;            ///< mean files (or subdirectories) per directory
  double dir_gamma = 1.5;          ///< shape of the per-directory width and depth draws; 0: fixed
  std::uint32_t prealloc_pct = 0;  ///< percent of the files created (with their size) beforehand
  /// `paralloc`: the preallocated files are created by several threads at once (filebench's
  /// allocation threads); the same files as without.
  bool paralloc = false;
  bool reuse = false;
  bool readonly = false;
  /// `cached=false`: once made, the preallocated files are flushed and dropped from the page
  /// cache (fileset_evict.hpp), the pages left resident reported. filebench 1.5-alpha3's lexer has
  /// no `cached` (its filemicro_*.f files using it end in a syntax error there); iobench reads it
  /// as those files mean it.
  bool cached = true;
  WmlPosition where;
};

/// The flowops the interpreter runs (filebench's names).
enum class FlowopKind : std::uint8_t {
  kCreateFile,
  kOpenFile,
  kCloseFile,
  kDeleteFile,
  kAppendFile,
  kAppendFileRand,
  kReadWholeFile,
  kRead,
  kWrite,
  kWriteWholeFile,
  kFsync,
  kStatFile,
  kDelay,
  kFinishOnCount,  ///< ends the run once its target (or all I/O flowops) reached value ops
  kFinishOnBytes,  ///< ends the run once its target (or all I/O flowops) moved over value bytes
  kOpsLimit,       ///< blocks on eventgen for the ops done since its last call; none: nothing
  kListDir,        ///< reads the entries of a directory of the fileset (in rotation)
  kFsyncSet,       ///< fsyncs every file of the fileset the thread has open, one op each
  kMakeDir,        ///< mkdir of a leaf directory of the fileset that does not exist
  kRemoveDir,      ///< rmdir of a leaf directory of the fileset that exists
  kHog,            ///< a CPU loop of value iterations, each storing to the thread's buffer
  kEventLimit,     ///< takes one eventgen event per call (blocking); no eventgen: nothing
  kIopsLimit,      ///< as opslimit, counting read and write ops
  kBwLimit,        ///< blocks for one event per MiB read or written since its last call
  kSemBlock,       ///< waits for value posts to this thread's semaphore (sempost)
  kSemPost,        ///< posts value to every thread's semblock named by target
  kBlock,          ///< waits until a wakeup naming it releases this thread
  kWakeup,         ///< releases every thread blocked in the block flowops named by target
  kAioWrite,       ///< an asynchronous write of iosize at a random offset (flowop_aio.hpp)
  kAioWait,        ///< waits for every aiowrite of the thread in flight
};

/// filebench's name of `kind` ("createfile"...).
[[nodiscard]] const char* flowop_kind_name(FlowopKind kind) noexcept;
/// The kind filebench calls `name` ("createfile"...), or nullopt.
[[nodiscard]] std::optional<FlowopKind> flowop_kind_of(std::string_view name) noexcept;
/// Whether `kind`'s bytes are reads (rd in the IO Summary line).
[[nodiscard]] bool flowop_reads(FlowopKind kind) noexcept;
/// Whether `kind`'s bytes are writes (wr in the IO Summary line).
[[nodiscard]] bool flowop_writes(FlowopKind kind) noexcept;
/// Whether `kind` is one of filebench's I/O flowops (FLOW_TYPE_IO: counted in the run's totals
/// and the IO Summary line), not delay, hog, finishoncount, finishonbytes or the rate limits.
[[nodiscard]] bool flowop_is_io(FlowopKind kind) noexcept;
/// Whether `kind` takes `directio` (it opens a file, or reads or writes one it may open):
/// createfile, openfile, read, write, appendfile, appendfilerand, readwholefile, writewholefile,
/// aiowrite.
[[nodiscard]] bool flowop_takes_directio(FlowopKind kind) noexcept;
/// Whether `kind` picks a file of its fileset (and so takes indexed=): those taking directio,
/// deletefile, statfile and fsync.
[[nodiscard]] bool flowop_picks_files(FlowopKind kind) noexcept;
/// The iosize of a directio flowop is a multiple of this (bytes): the least logical block size.
inline constexpr std::uint64_t kDirectIoAlignment = 512;
/// Whether `kind` is a rate limit taking eventgen's events (opslimit, iopslimit, bwlimit,
/// eventlimit).
[[nodiscard]] bool flowop_is_limit(FlowopKind kind) noexcept;

/// Number of file descriptor slots a thread has (fd=0..kMaxFd-1), as filebench's tf_fd.
inline constexpr std::uint32_t kMaxFd = 128;
/// No fileset given (flowops working on a descriptor only).
inline constexpr std::uint32_t kNoFileset = UINT32_MAX;
/// No target flowop given (finishon* and the rate limits count the whole run's flowops).
inline constexpr std::uint32_t kNoTarget = UINT32_MAX;

/// `flowop <kind> name=...,attr=...`.
struct FlowopDef {
  FlowopKind kind = FlowopKind::kDelay;
  std::string name;
  std::uint32_t fileset = kNoFileset;  ///< index into WmlModel::filesets
  std::uint64_t iosize = 0;  ///< bytes; 0 where not given; a randvar's or cvar's mean (>= 1)
  /// iosize=$randvar: the variable each op draws its iosize from (null: iosize is fixed).
  std::shared_ptr<const RandVarDef> iosize_var;
  /// iosize=$cvar: the custom variable each op draws its iosize from (null: none).
  std::shared_ptr<const CvarDef> iosize_cvar;
  std::uint32_t fd = 0;
  std::uint32_t srcfd = 0;
  /// filebench's opennext (fo_rotatefd): without fd= the flowop takes the thread's next
  /// descriptor slot (kMaxFd-1 down to 0, wrapping, one rotor per thread shared by its opennext
  /// flowops), and an open it makes picks from the thread's own rotor of its fileset instead of
  /// the set's shared one (filebench's fs_file_exrotor[tid]).
  bool opennext = false;
  /// indexed=N: the file picked is the first at or after index N modulo the set's files in the
  /// wanted state and not busy (filebench's FILESET_PICKBYINDEX); the set's rotor is not used.
  std::optional<std::uint64_t> index;
  /// indexed=$randvar: each pick draws its index from this variable (null: `index` or none).
  std::shared_ptr<const RandVarDef> index_var;
  std::uint64_t iters = 1;  ///< the op repeats this often per pass of the thread's list
  bool random = false;      ///< read/write: at random offsets within the file, else in sequence
  bool dsync = false;       ///< opened with O_SYNC (filebench's dsync)
  /// The file this flowop opens (createfile, openfile, or a read or write finding its fd closed)
  /// is opened with O_DIRECT, as filebench's; aiowrite: its engine file. Reads and writes on a
  /// descriptor another flowop opened keep that descriptor's flags (filebench's too).
  bool directio = false;
  /// read, write, aiowrite with random: offsets fall in [0, workingset) instead of the file's
  /// drawn size (filebench's fo_constwss); 0: the file's size.
  std::uint64_t workingset = 0;
  double value = 0;  ///< delay: seconds
  /// finishoncount: ops; finishonbytes: bytes (the run ends above it, as filebench's); hog: loop
  /// iterations.
  std::uint64_t limit = 0;
  /// finishoncount/finishonbytes/opslimit/iopslimit/bwlimit: index in the thread's flowops of
  /// `target=NAME` (its ops or bytes in this thread instance count), or kNoTarget (all threads'
  /// flowops count: I/O ones for finishon* and opslimit, reads and writes for iopslimit and
  /// bwlimit).
  std::uint32_t target = kNoTarget;
  /// sempost: the semblock flowop it posts to; wakeup: the block flowop it wakes (every thread
  /// instance's flowop of that name).
  std::string post_target;
  /// semblock: the high-water count (filebench's highwater: how far posters may run ahead).
  std::uint64_t highwater = 1;
  bool blocking = false;  ///< sempost: wait while the target's high-water count is used up
  WmlPosition where;
};

/// `thread name=...,instances=N,memsize=M { flowops }`.
struct ThreadDef {
  std::string name;
  std::uint32_t instances = 1;
  std::uint64_t memsize = 1 << 20;  ///< bytes of the thread's I/O buffer (filebench's tf_mem)
  /// memsize= was given. filebench's default memsize is 0: a whole-file I/O then gets a buffer
  /// of its own size, which iobench replaces by pieces of the default 1 MiB (whole_chunk()).
  bool memsize_given = false;
  /// useism: the buffer is an anonymous MAP_SHARED mapping instead of heap memory (filebench's
  /// ISM: shared memory, on Linux a shared mapping as well).
  bool useism = false;
  std::vector<FlowopDef> flowops;
  WmlPosition where;
};

/// `define process name=...,instances=N { threads }`.
struct ProcessDef {
  std::string name;
  std::uint32_t instances = 1;
  /// `nice=N`: added to the nice value of the process's threads (filebench's nice(N)), 0..19.
  int nice = 0;
  std::vector<ThreadDef> threads;
  WmlPosition where;
};

/// How the run ends (filebench's `set mode quit ...`, its shm_rmode). In every mode a
/// finishoncount/finishonbytes reaching its value ends the run, and `run N` bounds it.
enum class QuitMode : std::uint8_t {
  /// The default: the run lasts `run N` (60 s for a bare `run`); a thread that finds no file in
  /// the state a flowop needs stops and the step warns (filebench stops the run with an error).
  kTimeout,
  /// `set mode quit firstdone`: the first thread that finds no file ends the run for all, cleanly.
  kFirstDone,
  /// `set mode quit alldone`: a thread that finds no file stops; the run ends once every thread
  /// has stopped.
  kAllDone,
};

/// A parsed .f file.
struct WmlModel {
  std::vector<FilesetDef> filesets;
  std::vector<ProcessDef> processes;
  /// Every randvar of the file in order (RandVarDef::id indexes it).
  std::vector<std::shared_ptr<const RandVarDef>> randvars;
  /// `run N`: seconds; `run` without N: filebench's default 60 s; none: no run statement.
  std::optional<std::uint64_t> run_seconds;
  QuitMode quit_mode = QuitMode::kTimeout;
  /// A bare `run` under firstdone or alldone: no time limit, the run lasts until it is done
  /// (filebench's runtime 0); run_seconds is then empty.
  bool run_until_done = false;
  bool create_files = false;  ///< a `create files` statement
  /// `eventgen rate=N`: events per second for the rate-limit flowops; 0: no event generator
  /// (they do nothing, as filebench's).
  std::uint64_t eventgen_rate = 0;
  std::vector<std::string> echoes;
  /// `sleep N` statements before `create files` (or, without one, before the run creates the
  /// filesets): seconds the run pauses before making them (filebench's parser_pause, its master
  /// alone: no process runs before `run`/`psrun` in filebench 1.5).
  std::uint64_t sleep_before_create_s = 0;
  /// `sleep N` statements after `create files` and before `run`/`psrun`: seconds the run pauses
  /// with the filesets made and no process running yet.
  std::uint64_t sleep_after_create_s = 0;
  /// `psrun [P] [D]`: the run prints its stats every |P| seconds (filebench's period, 10 s
  /// without P); 0: a plain `run`. The run lasts D as `run D` does.
  std::uint64_t psrun_period_s = 0;
  /// `psrun -P`: the stats start anew after each period (filebench's stats_clear), else each
  /// period's line covers the run so far.
  bool psrun_reset = false;
  /// `enable lathist`: the report gives each flowop's latency histogram (filebench's 64
  /// power-of-two buckets of nanoseconds); `disable lathist` (iobench's extension) turns it off
  /// again, the last of them above `run` deciding.
  bool lathist = false;
  /// `set mode nousestats`: filebench 1.5 logs "Disabling CPU usage statistics" and sets a flag
  /// nothing reads; recorded, with no other effect.
  bool nousestats = false;
  /// `debug N`: filebench's log level (0 to 10; its default, LOG_INFO, is 2 when absent here as
  /// -1): it sets how much filebench itself logs, so iobench records it and changes nothing.
  int debug_level = -1;

  /// The files parsed, in order of their first reading (WmlPosition::file indexes it; empty in
  /// a model built by hand).
  std::vector<WmlSource> sources;

  /// "FILE:LINE:COLUMN: message" at `at`, then the chain of includes of its file; FILE is
  /// `main_name` for a position of the main file or one of a model without sources.
  [[nodiscard]] std::string located(WmlPosition at, std::string_view main_name,
                                    std::string_view message) const;
  /// Total thread instances: sum over processes of instances x sum of thread instances.
  [[nodiscard]] std::size_t thread_count() const noexcept;
  /// Index of fileset `name`, or kNoFileset.
  [[nodiscard]] std::uint32_t fileset_index(const std::string& name) const noexcept;
};

}  // namespace iobench::plugins::filebench
