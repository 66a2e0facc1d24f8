#include "plugins/dbench/loadfile_stream.hpp"

#include <fmt/format.h>

#include <iobench/error.hpp>

#include "plugins/dbench/fileio_client.hpp"
#include "plugins/dbench/loadfile_parser_impl.hpp"

namespace iobench::plugins::dbench {

LoadfileStream::LoadfileStream(std::filesystem::path path, std::size_t max_bytes,
                               ParseOptions options, const Loadfile& validated)
    : path_(std::move(path)),
      max_bytes_(max_bytes),
      options_(std::move(options)),
      validated_(validated),
      loadfile_(std::make_unique<Loadfile>()) {
  buffer_.reserve(2 * kChunkBytes);
  open();
}

LoadfileStream::~LoadfileStream() = default;

void LoadfileStream::open() {
  reader_.reset();
  reader_.emplace(path_, max_bytes_);
  if (reader_->identity() != validated_.source) {
    throw ReplayError(
        fmt::format("dbench: loadfile {} changed after the run validated it (another file, size or "
                    "modification time); run again with the file as it is now",
                    options_.file_name));
  }
  *loadfile_ = Loadfile{};
  parser_ = std::make_unique<detail::LoadfileParser>(*loadfile_, options_, &validated_);
  cursor_.reset();
  buffer_.clear();
  released_ = 0;
  at_end_ = false;
}

void LoadfileStream::rewind() { open(); }

void LoadfileStream::read_more() {
  if (at_end_) return;
  // Forget what neither the replay nor the parser will look at again: the window stays about
  // one chunk of instructions plus any LOOP being run or read.
  loadfile_->code.drop_before(std::min(released_, parser_->needed_from()));
  cursor_.reset();  // a LOOP's jump may change below; decode afresh
  // A chunk of comments adds no instruction: read on until one is added or the text ends.
  const std::size_t before = loadfile_->code.size();
  bool more = true;
  do {
    const std::size_t old_size = buffer_.size();
    more = reader_->read(buffer_, kChunkBytes);
    // Nothing to do until a line ends: a long line is scanned once, not once per chunk.
    if (more && buffer_.find('\n', old_size) == std::string::npos) continue;
    parser_->feed(buffer_, more);
  } while (more && loadfile_->code.size() == before);
  try {
    if (!more) {
      parser_->finish();
      at_end_ = true;
    } else if (parser_->error_count() > 0) {
      parser_->finish();  // throws the problems found
    }
  } catch (const ConfigError& e) {
    throw ReplayError(
        fmt::format("dbench: loadfile {} no longer reads as it did when the run validated it: {}",
                    options_.file_name, e.what()));
  }
}

std::size_t LoadfileStream::available() const noexcept {
  // A REPEAT read last is not final until its line is: a skipped unknown line drops it.
  const std::size_t size = loadfile_->code.size();
  return parser_->repeat_pending() && !at_end_ ? size - 1 : size;
}

const Instruction* LoadfileStream::at(std::size_t i) {
  Program& code = loadfile_->code;
  while (i >= available()) {
    if (at_end_) return nullptr;
    read_more();
  }
  if (!cursor_) cursor_.emplace(code);
  const Instruction* ins = &cursor_->at(i);
  // A LOOP's jump is set when its ENDLOOP is read (a validated file has one for every LOOP).
  while (ins->op == OpCode::kLoopBegin && ins->a == kNoId && !at_end_) {
    read_more();
    cursor_.emplace(code);
    ins = &cursor_->at(i);
  }
  return ins;
}

std::size_t LoadfileStream::window_bytes() const noexcept { return loadfile_->code.memory_bytes(); }

}  // namespace iobench::plugins::dbench
