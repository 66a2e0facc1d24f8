// Part of libiobench (not of the MPI module it loads): the dlopen of iobench-mpi-<SOVERSION>.so.
#include "mpi/mpi_loader.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>
#include <iobench/error.hpp>

#include "mpi/mpi_coordinator.hpp"
#include "plugin/shared_library.hpp"

namespace iobench::detail {

std::unique_ptr<Coordinator> load_mpi_coordinator(int& argc, char**& argv) {
  static const int anchor = 0;  // an address inside this library
  Dl_info self{};
  if (::dladdr(&anchor, &self) == 0 || self.dli_fname == nullptr) {
    throw ConfigError(
        "started by mpirun, but libiobench cannot tell where it is installed "
        "(dladdr) to load its MPI module");
  }
  const std::filesystem::path module =
      std::filesystem::path(self.dli_fname).parent_path() / IOBENCH_MPI_MODULE;
  std::string error;
  // RTLD_GLOBAL: OpenMPI's own components, which it loads later, look for its symbols there.
  SharedLibrary library = SharedLibrary::open(module.string(), error, true);
  if (!library) {
    throw ConfigError(fmt::format(
        "started by mpirun, but iobench's MPI module {} cannot be loaded: {}; it is installed "
        "with libiobench (lib/iobench/) and needs OpenMPI's libraries (Debian: libopenmpi3); "
        "or run iobench without mpirun",
        module.string(), error));
  }
  const auto make = reinterpret_cast<MakeMpiCoordinator>(library.symbol(kMakeMpiCoordinatorSymbol));
  if (make == nullptr) {
    throw ConfigError(fmt::format("iobench's MPI module {} has no {}: it is from another build",
                                  module.string(), kMakeMpiCoordinatorSymbol));
  }
  library.leak();  // MPI stays loaded until the process ends (MPI_Finalize runs at its end)
  std::unique_ptr<Coordinator> coordinator;
  make(&argc, &argv, &coordinator);
  return coordinator;
}

}  // namespace iobench::detail
