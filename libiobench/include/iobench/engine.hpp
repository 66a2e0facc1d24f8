#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iobench/confined_dir.hpp>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace iobench {

/// How a file is opened by an engine.
struct OpenOptions {
  bool read = true;
  bool write = false;
  /// Create the file: O_CREAT|O_EXCL|O_NOFOLLOW (never reuses or follows an existing path).
  bool create = false;
  /// O_DIRECT: bypass the page cache. Buffers and offsets must be aligned (see AlignedBuffer).
  bool direct = false;
  /// O_SYNC (each write durable with metadata); see `dsync`.
  bool sync = false;
  /// O_DSYNC (each write's data durable).
  bool dsync = false;
  /// For engines that map the file (mmap): the size to map; a created file is extended to it.
  std::uint64_t map_size_bytes = 0;
};

/// What an engine can do; the core and workloads decide by these flags, never by engine name.
struct EngineCaps {
  /// submit() returns before the I/O is done, so up to `max_depth` requests are in flight at
  /// once; false: the I/O happens inside submit() and completes there (psync, mmap, null).
  bool async = false;
  /// The largest queue depth (QueueOptions::depth) the engine takes; 1 for synchronous engines.
  std::uint32_t max_depth = 1;
  bool supports_direct = false;  ///< honours OpenOptions::direct (O_DIRECT)
  /// Buffered (page-cache) I/O would not be asynchronous: the kernel copies inside the submit
  /// call (libaio without O_DIRECT, as fio's HOWTO warns). Refused unless OpenOptions::direct.
  bool async_needs_direct = false;
  /// Completions are polled (RWF_HIPRI, IORING_SETUP_IOPOLL: the "hipri" option), which only
  /// O_DIRECT supports: refused unless OpenOptions::direct.
  bool polls_completions = false;
  /// Requests must use the queue's registered buffers (QueueOptions::buffers, io_uring's
  /// fixedbufs): a request's buffer is the slot buffer its buffer_index names, never other
  /// memory.
  bool registered_buffers = false;
  bool registered_files = false;  ///< the file is registered with the queue (io_uring)
  bool needs_map_size = false;    ///< OpenOptions::map_size_bytes must be set for writes
  /// false: no byte moves and every request completes at once (the null engine, which measures
  /// iobench's own cost per op); workloads then create no data files.
  bool moves_data = true;
  /// Requests may fail with EAGAIN instead of waiting for the device (pvsync2:nowait,
  /// RWF_NOWAIT): such a request moves nothing and does not count against an op limit, so a
  /// workload that loops until a limit needs a time limit with it.
  bool may_refuse_to_block = false;
};

/// One engine option a user may give after the engine's name ("io_uring:fixedbufs,sqpoll").
struct EngineOptionSpec {
  std::string name{};  ///< e.g. "sqpoll"
  std::string help{};  ///< one line for `iobench list`
};

/// An engine as the user named it: its name and the options after the colon, validated against
/// the engine's EngineOptionSpecs by Registry::create_engine().
struct EngineSpec {
  std::string name{};
  std::vector<std::string> options{};  ///< sorted, no duplicates

  /// True if option `option` was given.
  [[nodiscard]] bool has(std::string_view option) const noexcept;
  /// "name" or "name:opt1,opt2": how results record the engine.
  [[nodiscard]] std::string to_string() const;
  /// Parses "name[:opt[,opt]...]". Throws ConfigError naming `text` if the name or an option is
  /// empty or an option is repeated.
  [[nodiscard]] static EngineSpec parse(std::string_view text);
};

/// Direction of one queued I/O.
enum class IoDirection : std::uint8_t { kRead, kWrite };

/// One read or write handed to an IoQueue. Trivially copyable; the queue copies what it needs.
struct IoRequest {
  IoDirection direction = IoDirection::kRead;
  std::uint32_t length = 0;        ///< bytes; with O_DIRECT a multiple of the device's block size
  std::byte* buffer = nullptr;     ///< `length` bytes; aligned to AlignedBuffer::kAlignment for
                                   ///< O_DIRECT; must stay valid until the request's completion
  std::uint64_t offset = 0;        ///< bytes from the start of the file
  std::uint64_t tag = 0;           ///< the caller's; returned in the request's IoCompletion
  std::uint32_t buffer_index = 0;  ///< which of QueueOptions' registered buffers `buffer` lies in
};

/// The outcome of one IoRequest.
struct IoCompletion {
  std::uint64_t tag = 0;    ///< IoRequest::tag
  std::int64_t result = 0;  ///< bytes moved (may be fewer than asked), or -errno
};

/// How a queue is set up (once per worker, untimed).
struct QueueOptions {
  /// Most requests in flight at once: 1..EngineCaps::max_depth.
  std::uint32_t depth = 1;
  /// The memory requests' buffers lie in, as `buffer_count` buffers of `buffer_bytes` each, back
  /// to back; an engine with registered buffers (io_uring:fixedbufs) registers them here once.
  /// May be empty for engines that do not register buffers.
  std::span<std::byte> buffers{};
  std::size_t buffer_bytes = 0;
};

/// A worker's submission and completion queue on one open file. Owned by one worker; not
/// thread-safe. Synchronous engines serve the same interface at depth 1: the I/O happens in
/// submit() and its completion is ready at once, so a workload has one I/O loop for every engine
/// (see IoDriver in <iobench/io_driver.hpp>).
class IoQueue {
 public:
  virtual ~IoQueue() = default;
  /// Starts every request of `requests` (REQUIRES: in_flight() + requests.size() <= depth()).
  /// Failures of single requests arrive as completions with a negative result; throws IoError
  /// only if the engine cannot take the batch at all (e.g. io_uring_enter fails), and
  /// synchronous engines throw the IoError of the failed read or write, as IoFile does.
  virtual void submit(std::span<const IoRequest> requests) = 0;
  /// Returns completions: waits until at least `min_completions` (REQUIRES: <= in_flight()) are
  /// available and copies up to out.size() of them into `out`; returns how many. Throws IoError
  /// if waiting fails.
  virtual std::size_t reap(std::span<IoCompletion> out, std::size_t min_completions) = 0;
  /// Requests submitted and not yet reaped.
  [[nodiscard]] std::uint32_t in_flight() const noexcept { return in_flight_; }
  /// QueueOptions::depth.
  [[nodiscard]] std::uint32_t depth() const noexcept { return depth_; }

 protected:
  explicit IoQueue(std::uint32_t depth) noexcept : depth_(depth) {}
  std::uint32_t in_flight_ = 0;  ///< kept by the engine: + on submit, - on reap

 private:
  std::uint32_t depth_;
};

/// An open file of an engine. Owned by one worker; not thread-safe.
///
/// read_at/write_at move the whole span or throw: short transfers are retried, EINTR is retried,
/// a read past end of file throws IoError(EIO-like "short read").
class IoFile {
 public:
  virtual ~IoFile() = default;
  /// Reads buf.size() bytes at `offset`. Throws IoError.
  virtual void read_at(std::span<std::byte> buf, std::uint64_t offset) = 0;
  /// Writes buf.size() bytes at `offset`. Throws IoError (ENOSPC, EIO...).
  virtual void write_at(std::span<const std::byte> buf, std::uint64_t offset) = 0;
  /// fsync(2) (or msync for mapped files). Throws IoError.
  virtual void sync() = 0;
  /// Closes now (errors from close are reported, unlike the destructor). Throws IoError.
  virtual void close() = 0;
  /// Current size of the file in bytes.
  [[nodiscard]] virtual std::uint64_t size() const = 0;
  /// The underlying descriptor (-1 once closed, or for engines without one).
  [[nodiscard]] virtual int fd() const = 0;
  /// The path the file was opened by, for messages.
  [[nodiscard]] virtual const std::filesystem::path& path() const = 0;
  /// A queue of `options.depth` on this file (untimed set-up). The default serves synchronous
  /// engines: each request is one read_at/write_at inside submit(). Throws ConfigError for a
  /// depth above the engine's maximum, IoError if the engine's queue cannot be set up (e.g.
  /// io_uring refused by the kernel).
  [[nodiscard]] virtual std::unique_ptr<IoQueue> make_queue(const QueueOptions& options);
};

/// How bytes move: psync (pread/pwrite), mmap, io_uring, libaio, ... One instance per step,
/// configured by its EngineSpec options; shared by the step's workers, so const and
/// thread-safe.
class Engine {
 public:
  virtual ~Engine() = default;
  /// Registered name, e.g. "psync".
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual EngineCaps caps() const = 0;
  /// Empty if the engine works here; otherwise why not, as a user should read it (e.g.
  /// "io_uring_queue_init: Operation not permitted (kernel.io_uring_disabled?)"). Checked
  /// before any I/O. Default: available.
  [[nodiscard]] virtual std::string unavailable_reason() const { return {}; }
  /// Opens `location` (a name beneath a run directory, resolved there by the kernel, or the
  /// user's own existing target; see FileLocation::open). Throws IoError on failure (EEXIST when
  /// `create` finds an existing name, ELOOP for a symbolic link inside a run directory).
  [[nodiscard]] virtual std::unique_ptr<IoFile> open(const FileLocation& location,
                                                     const OpenOptions& options) const = 0;
};

/// A heap buffer aligned for O_DIRECT (4096 bytes) and filled with a non-zero, non-repeating byte
/// pattern so filesystems that compress or dedupe zeroes are not flattered. Move-only.
class AlignedBuffer {
 public:
  static constexpr std::size_t kAlignment = 4096;
  AlignedBuffer() = default;
  /// Allocates `size_bytes` (rounded up to kAlignment). Throws std::bad_alloc.
  explicit AlignedBuffer(std::size_t size_bytes);
  AlignedBuffer(AlignedBuffer&& other) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer();

  [[nodiscard]] std::span<std::byte> span() noexcept { return {data_, size_}; }
  [[nodiscard]] std::span<const std::byte> span() const noexcept { return {data_, size_}; }
  [[nodiscard]] std::byte* data() noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

/// The psync engine: pread(2)/pwrite(2) with OpenOptions' O_DIRECT, O_SYNC, O_DSYNC.
[[nodiscard]] std::unique_ptr<Engine> make_psync_engine();
/// The mmap engine: the file is mapped MAP_SHARED; reads and writes are memcpy, sync is msync.
/// A page the filesystem cannot provide during a copy (no space for a sparse file's page, a
/// device error, a file truncated meanwhile) raises SIGBUS; read_at/write_at turn it into an
/// IoError naming the offset and the inferred errno (ENOSPC, EROFS or EIO) instead of the
/// process being killed. For this the engine installs, on its first mapping, a process-wide
/// SIGBUS handler that passes every SIGBUS outside its own copies to the handler installed
/// before it (or the default action).
[[nodiscard]] std::unique_ptr<Engine> make_mmap_engine();
/// The null engine: opens no file and moves no byte; every request completes at once with its
/// full length, so a run measures iobench's own cost per op (fio's ioengine=null).
[[nodiscard]] std::unique_ptr<Engine> make_null_engine();
/// The pvsync2 engine: preadv2(2)/pwritev2(2) with RWF_HIPRI ("hipri": polled completion, needs
/// O_DIRECT and a device with poll queues) and RWF_NOWAIT ("nowait": a request that would block
/// fails with EAGAIN instead of waiting; its completion carries -EAGAIN, which IoDriver counts as
/// an error op and then fails the worker for), as `spec` asks.
[[nodiscard]] std::unique_ptr<Engine> make_pvsync2_engine(const EngineSpec& spec);
/// The io_uring engine (liburing): up to 4096 requests in flight, batched submit and reap;
/// options "fixedbufs" (registered buffers, IORING_OP_READ_FIXED), "registerfiles" (registered
/// file descriptor), "sqpoll" (a kernel thread polls the submission queue), "hipri" (polled
/// completions, O_DIRECT only). Buffered or O_DIRECT.
[[nodiscard]] std::unique_ptr<Engine> make_io_uring_engine(const EngineSpec& spec);
/// The libaio engine (Linux native AIO, io_submit/io_getevents): up to 4096 requests in flight,
/// O_DIRECT only (buffered libaio runs synchronously inside io_submit).
[[nodiscard]] std::unique_ptr<Engine> make_libaio_engine();

}  // namespace iobench
