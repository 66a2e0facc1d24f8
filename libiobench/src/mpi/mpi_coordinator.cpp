// Coordinator over MPI. Every wait is non-blocking MPI polled against a deadline, so that a rank
// that is gone (SIGKILL, a dead node) turns into a CoordinationError after timeout() instead of a
// hang; stops travel as point-to-point messages on a communicator of their own, probed without
// blocking.
#include "mpi/mpi_coordinator.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iobench/clock.hpp>
#include <iobench/printable.hpp>
#include <list>
#include <thread>
#include <type_traits>

namespace iobench::detail {
namespace {

// Where each rank's part starts in a gathered buffer (MPI's displacements), and the buffer's
// length as the last element.
std::vector<int> offsets_of(const std::vector<int>& lengths) {
  std::vector<int> offsets(lengths.size() + 1, 0);
  for (std::size_t r = 0; r < lengths.size(); ++r) offsets[r + 1] = offsets[r] + lengths[r];
  return offsets;
}

using namespace std::chrono_literals;

constexpr int kStopTag = 1;
constexpr int kPingTag = 2;
constexpr int kClockRounds = 16;

std::chrono::nanoseconds timeout_from_environment() {
  const char* text = std::getenv("IOBENCH_RANK_TIMEOUT");
  if (text == nullptr || *text == '\0') return 600s;
  const std::string_view value(text);
  unsigned seconds = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec != std::errc() || end != value.data() + value.size() || seconds < 1 || seconds > 86400) {
    throw ConfigError(fmt::format(
        "IOBENCH_RANK_TIMEOUT '{}': the seconds a rank waits for the others must be a whole "
        "number from 1 to 86400",
        printable(value)));
  }
  return std::chrono::seconds(seconds);
}

class MpiCoordinator final : public Coordinator {
 public:
  MpiCoordinator(int& argc, char**& argv, std::chrono::nanoseconds timeout) : timeout_(timeout) {
    int provided = 0;
    ::MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    // Errors come back as codes, to become exceptions with the rank in them, not aborts.
    ::MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    ::MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    ::MPI_Comm_dup(MPI_COMM_WORLD, &stop_comm_);
    ::MPI_Comm_rank(comm_, &identity_.rank);
    ::MPI_Comm_size(comm_, &identity_.size);
    MPI_Comm local = MPI_COMM_NULL;
    ::MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, identity_.rank, MPI_INFO_NULL, &local);
    ::MPI_Comm_rank(local, &identity_.local_rank);
    ::MPI_Comm_free(&local);
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    ::MPI_Get_processor_name(name, &length);
    identity_.host.assign(name, static_cast<std::size_t>(std::max(length, 0)));
    measure_clock();
  }

  [[nodiscard]] const RankIdentity& identity() const noexcept override { return identity_; }

  [[nodiscard]] std::vector<std::string> all_gather(std::string_view mine) override {
    check_alive("a collective");
    int length = static_cast<int>(mine.size());
    std::vector<int> lengths(static_cast<std::size_t>(identity_.size));
    MPI_Request request{};
    ::MPI_Iallgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm_, &request);
    wait(request, "all_gather");
    const std::vector<int> offsets = offsets_of(lengths);
    std::string buffer(static_cast<std::size_t>(offsets.back()), '\0');
    ::MPI_Iallgatherv(mine.data(), length, MPI_CHAR, buffer.data(), lengths.data(), offsets.data(),
                      MPI_CHAR, comm_, &request);
    wait(request, "all_gather");
    return split(buffer, lengths, offsets);
  }

  [[nodiscard]] std::vector<std::string> gather(std::string_view mine) override {
    check_alive("a collective");
    int length = static_cast<int>(mine.size());
    const bool root = identity_.rank == 0;
    std::vector<int> lengths(root ? static_cast<std::size_t>(identity_.size) : 0);
    MPI_Request request{};
    ::MPI_Igather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm_, &request);
    wait(request, "gather");
    const std::vector<int> offsets = offsets_of(lengths);
    std::string buffer(static_cast<std::size_t>(offsets.back()), '\0');
    ::MPI_Igatherv(mine.data(), length, MPI_CHAR, buffer.data(), lengths.data(), offsets.data(),
                   MPI_CHAR, 0, comm_, &request);
    wait(request, "gather");
    return root ? split(buffer, lengths, offsets) : std::vector<std::string>{};
  }

  void begin_epoch() override {
    drain_stops();
    ++epoch_;
    raised_ = false;
    stop_.reset();
  }

  void raise_stop(std::string_view reason, StopKind kind) override {
    if (raised_ || lost_) return;
    raised_ = true;
    std::string& text = sent_.emplace_back(
        fmt::format("{}\n{}{}", epoch_, kind == StopKind::kStonewall ? 'S' : 'F', reason));
    for (int r = 0; r < identity_.size; ++r) {
      if (r == identity_.rank) continue;
      MPI_Request& request = requests_.emplace_back();
      ::MPI_Isend(text.data(), static_cast<int>(text.size()), MPI_CHAR, r, kStopTag, stop_comm_,
                  &request);
    }
  }

  [[nodiscard]] std::optional<RaisedStop> stop_raised() override {
    if (!lost_) drain_stops();
    return stop_;
  }

  [[nodiscard]] std::int64_t clock_offset_ns() const noexcept override { return offset_ns_; }
  [[nodiscard]] std::uint64_t clock_residual_ns() const noexcept override { return residual_ns_; }
  [[nodiscard]] std::chrono::nanoseconds timeout() const noexcept override { return timeout_; }
  [[nodiscard]] bool lost() const noexcept override { return lost_; }
  [[nodiscard]] std::string lost_reason() const override { return lost_reason_; }

  void finish(int abort_status) noexcept override {
    if (!lost_ && abort_status == 0) {
      try {
        MPI_Request request{};
        ::MPI_Ibarrier(comm_, &request);
        wait(request, "the final barrier");
        drain_stops();
        // Stop messages nobody took (their epoch was over) are cancelled, not awaited.
        for (MPI_Request& r : requests_) {
          int done = 0;
          ::MPI_Test(&r, &done, MPI_STATUS_IGNORE);
          if (!done) {
            ::MPI_Cancel(&r);
            ::MPI_Request_free(&r);
          }
        }
        ::MPI_Finalize();
        return;
      } catch (const CoordinationError&) {
      }
    }
    std::fflush(stdout);
    std::fflush(stderr);
    ::MPI_Abort(MPI_COMM_WORLD, abort_status != 0 ? abort_status : 1);
  }

 private:
  static std::vector<std::string> split(const std::string& buffer, const std::vector<int>& lengths,
                                        const std::vector<int>& offsets) {
    std::vector<std::string> out;
    out.reserve(lengths.size());
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      out.emplace_back(buffer, static_cast<std::size_t>(offsets[r]),
                       static_cast<std::size_t>(lengths[r]));
    }
    return out;
  }

  void check_alive(const char* what) const {
    if (lost_) {
      throw CoordinationError(fmt::format("rank {}: {} skipped: the other ranks were lost earlier",
                                          identity_.rank, what));
    }
  }

  // Polls `request` until it completes or the timeout passes (then the ranks are lost).
  void wait(MPI_Request& request, const char* what) {
    const std::uint64_t deadline = monotonic_ns() + static_cast<std::uint64_t>(timeout_.count());
    auto pause = 10us;
    for (;;) {
      int done = 0;
      if (::MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        lose(fmt::format("rank {} ({}): MPI failed in {}: a rank is gone", identity_.rank,
                         identity_.host, what));
      }
      if (done) return;
      if (monotonic_ns() >= deadline) {
        lose(fmt::format(
            "rank {} ({}): no answer from every rank within {} s in {}: a rank was lost "
            "(killed, hung, or its node is gone); IOBENCH_RANK_TIMEOUT sets the wait",
            identity_.rank, identity_.host,
            std::chrono::duration_cast<std::chrono::seconds>(timeout_).count(), what));
      }
      std::this_thread::sleep_for(pause);
      pause = std::min<std::chrono::microseconds>(pause * 2, 2ms);
    }
  }

  [[noreturn]] void lose(std::string why) {
    lost_ = true;
    lost_reason_ = std::move(why);
    throw CoordinationError(lost_reason_);
  }

  // Takes every stop message that arrived; keeps the first of the current epoch.
  void drain_stops() {
    for (;;) {
      int flag = 0;
      MPI_Status status{};
      if (::MPI_Iprobe(MPI_ANY_SOURCE, kStopTag, stop_comm_, &flag, &status) != MPI_SUCCESS ||
          !flag)
        break;
      int count = 0;
      ::MPI_Get_count(&status, MPI_CHAR, &count);
      std::string text(static_cast<std::size_t>(std::max(count, 0)), '\0');
      ::MPI_Recv(text.data(), count, MPI_CHAR, status.MPI_SOURCE, kStopTag, stop_comm_,
                 MPI_STATUS_IGNORE);
      const std::size_t newline = text.find('\n');
      if (newline == std::string::npos || newline + 1 == text.size()) continue;
      // A rank raises only after the barrier that every rank entered in this epoch, so a stop
      // of another epoch is an old one: dropped.
      if (text.substr(0, newline) != std::to_string(epoch_) || stop_) continue;
      stop_ = RaisedStop{
          .kind = text[newline + 1] == 'S' ? StopKind::kStonewall : StopKind::kFailure,
          .text = fmt::format("rank {}: {}", status.MPI_SOURCE, text.substr(newline + 2))};
    }
    // Sends that completed are forgotten (their buffers with them).
    while (!requests_.empty()) {
      int done = 0;
      ::MPI_Test(&requests_.front(), &done, MPI_STATUS_IGNORE);
      if (!done) break;
      requests_.pop_front();
    }
    if (requests_.empty()) sent_.clear();
  }

  // Ping-pong with rank 0, kClockRounds times per rank: the round trip with the least time
  // gives the offset (the other clock read at the midpoint) and its bound (half that trip).
  void measure_clock() {
    if (identity_.rank == 0) {
      std::uint64_t worst = 0;
      for (int r = 1; r < identity_.size; ++r) {
        std::uint64_t best_trip = UINT64_MAX;
        std::int64_t best_offset = 0;
        for (int round = 0; round < kClockRounds; ++round) {
          std::uint64_t their = 0;
          const std::uint64_t ping = 0;
          const std::uint64_t sent = monotonic_ns();
          send_words(r, &ping, 1);
          receive_words(r, &their, 1);
          const std::uint64_t back = monotonic_ns();
          if (back - sent < best_trip) {
            best_trip = back - sent;
            best_offset = static_cast<std::int64_t>(their) -
                          static_cast<std::int64_t>(sent + (back - sent) / 2);
          }
        }
        const std::uint64_t result[2] = {static_cast<std::uint64_t>(best_offset), best_trip / 2};
        send_words(r, result, 2);
        worst = std::max(worst, best_trip / 2);
      }
      residual_ns_ = worst;
      return;
    }
    if (identity_.size < 2) return;
    for (int round = 0; round < kClockRounds; ++round) {
      std::uint64_t ping = 0;
      receive_words(0, &ping, 1);
      const std::uint64_t now = monotonic_ns();
      send_words(0, &now, 1);
    }
    std::uint64_t result[2] = {};
    receive_words(0, result, 2);
    offset_ns_ = static_cast<std::int64_t>(result[0]);
    residual_ns_ = result[1];
  }

  void send_words(int peer, const std::uint64_t* words, int count) {
    MPI_Request request{};
    ::MPI_Isend(words, count, MPI_UINT64_T, peer, kPingTag, comm_, &request);
    wait(request, "the clock ping-pong");
  }
  void receive_words(int peer, std::uint64_t* words, int count) {
    MPI_Request request{};
    ::MPI_Irecv(words, count, MPI_UINT64_T, peer, kPingTag, comm_, &request);
    wait(request, "the clock ping-pong");
  }

  RankIdentity identity_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm stop_comm_ = MPI_COMM_NULL;
  std::chrono::nanoseconds timeout_;
  std::int64_t offset_ns_ = 0;
  std::uint64_t residual_ns_ = 0;
  std::uint64_t epoch_ = 0;
  bool raised_ = false;
  bool lost_ = false;
  std::string lost_reason_;
  std::optional<RaisedStop> stop_;
  std::list<std::string> sent_;      // buffers of stop messages in flight
  std::list<MPI_Request> requests_;  // their sends
};

}  // namespace

std::unique_ptr<Coordinator> make_mpi_coordinator(int& argc, char**& argv) {
  // Checked before MPI_Init: a bad value ends the process before MPI exists.
  const std::chrono::nanoseconds timeout = timeout_from_environment();
  return std::make_unique<MpiCoordinator>(argc, argv, timeout);
}

}  // namespace iobench::detail

extern "C" [[gnu::visibility("default")]] void iobench_make_mpi_coordinator(
    int* argc, char*** argv, std::unique_ptr<iobench::Coordinator>* out) {
  static_assert(
      std::is_same_v<decltype(&iobench_make_mpi_coordinator), iobench::detail::MakeMpiCoordinator>);
  *out = iobench::detail::make_mpi_coordinator(*argc, *argv);
}
