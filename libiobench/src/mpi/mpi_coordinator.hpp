#pragma once

#include <iobench/coordinator.hpp>
#include <memory>

namespace iobench::detail {

/// The MPI coordinator (mpi_coordinator.cpp): MPI_Init_thread, identity from MPI_COMM_WORLD and
/// a shared-memory split, clock offsets by ping-pong with rank 0. Only built with MPI, into the
/// module iobench-mpi-<SOVERSION>.so, which make_coordinator() loads under mpirun.
[[nodiscard]] std::unique_ptr<Coordinator> make_mpi_coordinator(int& argc, char**& argv);

/// The module's entry point, looked up by this name: sets `*out` to make_mpi_coordinator()'s
/// coordinator; its exceptions (ConfigError, CoordinationError) propagate to the caller.
using MakeMpiCoordinator = void (*)(int* argc, char*** argv, std::unique_ptr<Coordinator>* out);
inline constexpr const char* kMakeMpiCoordinatorSymbol = "iobench_make_mpi_coordinator";

}  // namespace iobench::detail
