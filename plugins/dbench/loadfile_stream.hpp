#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "plugins/dbench/loadfile_parser.hpp"
#include "plugins/dbench/loadfile_program.hpp"
#include "plugins/dbench/loadfile_reader.hpp"

namespace iobench::plugins::dbench {

namespace detail {
class LoadfileParser;
}

/// A loadfile replayed as it is read, as dbench's clients read theirs line by line: the text is
/// parsed a chunk (kChunkBytes) at a time into a window of instructions, and the ones the replay
/// has passed are forgotten, so a client process's memory does not grow with the loadfile
/// (client.txt: 26 MB of text, about 4 MB as a whole program). Each pass reads the file again
/// from its start; the parse is the validated one's, so paths, handles and strings get the same
/// ids in every pass and in every process.
///
/// The file must still be the one the run validated (`validated.source`): one changed since
/// (another inode, size or time) is refused with a ReplayError, as is one that no longer parses.
/// The instructions refer to the validation's tables (tables()): a stream builds no paths or
/// handle table of its own, so client processes share the runner's, read-only, from the fork.
class LoadfileStream {
 public:
  /// Text read and parsed at a time (about 700 lines of client.txt).
  static constexpr std::size_t kChunkBytes = 16 * 1024;

  /// Opens `path` again for a replay of what `validated` (parse_loadfile_file() of it, with the
  /// same `options`) describes; `validated` must outlive the stream. Throws ConfigError if it
  /// cannot be opened, ReplayError if it is no longer that file.
  LoadfileStream(std::filesystem::path path, std::size_t max_bytes, ParseOptions options,
                 const Loadfile& validated);
  ~LoadfileStream();
  LoadfileStream(const LoadfileStream&) = delete;
  LoadfileStream& operator=(const LoadfileStream&) = delete;

  /// The tables (paths, strings, statuses, handles, expressions) the instructions refer to: the
  /// validated loadfile's, whole from the start.
  [[nodiscard]] const Loadfile& tables() const noexcept { return validated_; }

  /// Instruction `i` of the pass, reading on as far as needed (for a LOOP, to its ENDLOOP, which
  /// sets its jump); nullptr past the last one. Valid until the next call. REQUIRES: i is not
  /// before what release_before() gave up. Throws ReplayError if the text no longer parses,
  /// ConfigError if it cannot be read.
  [[nodiscard]] const Instruction* at(std::size_t i);

  /// The replay will not come back to instructions before `i` (a LOOP it is in starts at or
  /// after it): they may be forgotten.
  void release_before(std::size_t i) noexcept { released_ = i; }

  /// Starts the next pass: the file is read again from its start.
  void rewind();

  /// Bytes of the window of instructions held now (for tests of the memory bound).
  [[nodiscard]] std::size_t window_bytes() const noexcept;
  /// Bytes the stream's own Loadfile holds (Loadfile::memory_bytes(): the window and what the
  /// replay's parse adds beside tables(), no paths or handles), for tests of the memory bound.
  [[nodiscard]] std::size_t memory_bytes() const noexcept { return loadfile_->memory_bytes(); }

 private:
  /// Forgets what was released, then reads and parses the next chunk(s) until an instruction
  /// is added or the text ends (then the parse is finished and at_end_ set).
  void read_more();
  void open();
  /// Instructions read that the replay may have: all but a REPEAT still waiting for its line.
  [[nodiscard]] std::size_t available() const noexcept;

  std::filesystem::path path_;
  std::size_t max_bytes_;
  ParseOptions options_;
  const Loadfile& validated_;
  std::unique_ptr<Loadfile> loadfile_;  ///< the window of code (its own paths and handles: none)
  std::unique_ptr<detail::LoadfileParser> parser_;
  std::optional<LoadfileTextReader> reader_;
  std::optional<Program::Cursor> cursor_;
  std::string buffer_;
  std::size_t released_ = 0;
  bool at_end_ = false;
};

}  // namespace iobench::plugins::dbench
