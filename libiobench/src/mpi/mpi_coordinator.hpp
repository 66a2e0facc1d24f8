#pragma once

#include <iobench/coordinator.hpp>
#include <memory>

namespace iobench::detail {

/// The MPI coordinator (mpi_coordinator.cpp): MPI_Init_thread, identity from MPI_COMM_WORLD and
/// a shared-memory split, clock offsets by ping-pong with rank 0. Only built with MPI.
[[nodiscard]] std::unique_ptr<Coordinator> make_mpi_coordinator(int& argc, char**& argv);

}  // namespace iobench::detail
