#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <iobench/data_pattern.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <string>

#include "plugins/bonnie/phases.hpp"

namespace iobench::plugins::bonnie {

/// What one copy's I/O-file worker needs.
struct IoArgs {
  ConfinedDir run_dir;         ///< the run directory the copy's scratch file is in
  std::string name;            ///< the scratch file's name there ("Bonnie.<copy>")
  std::filesystem::path file;  ///< its path, for messages
  std::uint32_t chunk_bytes = 8192;
  std::uint64_t file_bytes = 0;      ///< size the block output writes
  std::uint64_t per_char_bytes = 0;  ///< bytes the per-char phases move
  /// O_DIRECT on the block phases' opens (put_block, rewrite, get_block, seeks), not per-char.
  bool direct = false;
  DataPattern data{DataPattern::Kind::kBonnie, 0};  ///< block output's bytes
  bool fsync = false;       ///< fsync after each seek's rewrite (bonnie++ -b)
  std::uint64_t seeks = 0;  ///< tickets the copy's seekers share
  std::uint64_t seed = 0;   ///< the seek tickets' stream
  /// Next ticket of the copy, shared by its seekers (in memory shared across processes).
  std::atomic<std::uint64_t>* next_ticket = nullptr;
};

/// Op and counter ids of the I/O phases (op names: see io_op_names).
inline constexpr OpId kIoOp = 0;
inline constexpr CounterId kCallsCounter = 0;    ///< putc/getc: one-byte system calls made
inline constexpr CounterId kUpdatesCounter = 0;  ///< seeks: seeks that also rewrote their chunk

/// Builds the worker of I/O phase `id` (putc .. seeks) for one copy, untimed: opens the file
/// (block output first unlinks the per-char output's file and creates it anew, as bonnie++ does),
/// with O_DIRECT for the block phases when `direct`, and allocates a page-aligned chunk buffer.
/// The timed run() does exactly bonnie++'s system calls and ends with fsync(2) + close(2), which
/// bonnie++ times too:
/// - putc: write(fd, &c, 1) per byte, c = byte index in the chunk & 0x7f; one op per chunk.
/// - put_block: write(fd, buf, chunk) per chunk, buf = block i of `data` (bonnie++'s own: its
///   zeroed buffer with byte i % chunk incremented before write i).
/// - rewrite: per chunk read(chunk), change a byte, lseek(-chunk, SEEK_CUR), write(chunk).
/// - getc: read(fd, &c, 1) per byte; one op per chunk.
/// - get_block: read(chunk) per chunk.
/// - seeks: per ticket taken from the shared counter: lseek + read(chunk) at a random
///   chunk-aligned offset over the whole file; about 1 ticket in 10 also rewrites the chunk
///   (lseek + write, then fsync with `fsync`).
/// Readers size their loops from the file as it is (a time-limited block output leaves a shorter
/// file). Throws IoError.
[[nodiscard]] std::unique_ptr<PhaseWorker> make_io_worker(PhaseId id, const IoArgs& args);

/// The seek ticket `n` of stream `seed`: a 63-bit value; chunk = value % chunks, an update when
/// value % 10 == 0 (bonnie++ draws rand() and marks multiples of 10 as updates).
[[nodiscard]] std::uint64_t seek_ticket(std::uint64_t seed, std::uint64_t n) noexcept;

}  // namespace iobench::plugins::bonnie
