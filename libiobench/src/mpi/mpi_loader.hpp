#pragma once

#include <iobench/coordinator.hpp>
#include <memory>

namespace iobench::detail {

/// Loads the MPI module beside libiobench (IOBENCH_MPI_MODULE, relative to the library's own
/// directory: the same in the build tree and installed) and returns its coordinator
/// (make_mpi_coordinator(), which calls MPI_Init_thread). Only built with MPI; only called
/// under mpirun. Throws ConfigError when the module cannot be found, loaded, or is from another
/// build; the module's own ConfigError and CoordinationError propagate.
[[nodiscard]] std::unique_ptr<Coordinator> load_mpi_coordinator(int& argc, char**& argv);

}  // namespace iobench::detail
