// The single-process coordinator, the choice between it and the MPI one (loaded by
// mpi/mpi_loader.cpp), and target templates.
#include <fmt/format.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <iobench/coordinator.hpp>
#include <iobench/printable.hpp>

#ifdef IOBENCH_HAVE_MPI
#include "mpi/mpi_loader.hpp"
#endif

namespace iobench {
namespace {

std::string own_host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

class SingleProcessCoordinator final : public Coordinator {
 public:
  SingleProcessCoordinator() { identity_.host = own_host_name(); }
  [[nodiscard]] const RankIdentity& identity() const noexcept override { return identity_; }
  [[nodiscard]] std::vector<std::string> all_gather(std::string_view mine) override {
    return {std::string(mine)};
  }
  [[nodiscard]] std::vector<std::string> gather(std::string_view mine) override {
    return {std::string(mine)};
  }
  void begin_epoch() override {}
  void raise_stop(std::string_view /*reason*/, StopKind /*kind*/) override {}
  [[nodiscard]] std::optional<RaisedStop> stop_raised() override { return std::nullopt; }
  [[nodiscard]] std::int64_t clock_offset_ns() const noexcept override { return 0; }
  [[nodiscard]] std::uint64_t clock_residual_ns() const noexcept override { return 0; }
  [[nodiscard]] std::chrono::nanoseconds timeout() const noexcept override {
    return std::chrono::nanoseconds::max();
  }
  [[nodiscard]] bool lost() const noexcept override { return false; }
  [[nodiscard]] std::string lost_reason() const override { return {}; }
  void finish(int /*abort_status*/) noexcept override {}

 private:
  RankIdentity identity_;
};

}  // namespace

std::unique_ptr<Coordinator> make_single_process_coordinator() {
  return std::make_unique<SingleProcessCoordinator>();
}

bool launched_by_mpirun() noexcept {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr;
}

std::unique_ptr<Coordinator> make_coordinator(int& argc, char**& argv) {
  if (!launched_by_mpirun()) return make_single_process_coordinator();
#ifdef IOBENCH_HAVE_MPI
  return detail::load_mpi_coordinator(argc, argv);
#else
  (void)argc;
  (void)argv;
  throw ConfigError(
      "started by mpirun, but this iobench was built without MPI (IOBENCH_WITH_MPI=OFF, or no "
      "MPI found); rebuild with -DIOBENCH_WITH_MPI=ON (Debian: libopenmpi-dev) or run it alone");
#endif
}

std::string expand_rank_template(std::string_view pattern, const RankIdentity& who) {
  std::string out;
  const auto bad = [&](std::string_view why) {
    return ConfigError(fmt::format(
        "target '{}': {}; a target takes {{rank}}, {{size}}, {{local_rank}} or {{host}}, and "
        "{{{{ or }}}} for a literal brace",
        printable(pattern), why));
  };
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '}') {
      if (i + 1 < pattern.size() && pattern[i + 1] == '}') {
        out += '}';
        ++i;
        continue;
      }
      throw bad("a '}' without its '{'");
    }
    if (c != '{') {
      out += c;
      continue;
    }
    if (i + 1 < pattern.size() && pattern[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    const std::size_t close = pattern.find('}', i);
    if (close == std::string_view::npos) throw bad("a '{' without its '}'");
    const std::string_view name = pattern.substr(i + 1, close - i - 1);
    if (name == "rank") {
      out += std::to_string(who.rank);
    } else if (name == "size") {
      out += std::to_string(who.size);
    } else if (name == "local_rank") {
      out += std::to_string(who.local_rank);
    } else if (name == "host") {
      out += who.host;
    } else {
      throw bad(fmt::format("unknown name {{{}}}", printable(name)));
    }
    i = close;
  }
  return out;
}

}  // namespace iobench
