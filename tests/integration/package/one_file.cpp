// The smallest tool on the installed package, built by the package test with nothing but
//   c++ -std=c++20 one_file.cpp $(pkg-config --cflags --libs iobench)
// Runs the disk workload through the library: 32 writes of 4 KiB into DIR. Exit 0 if the result
// holds exactly those bytes and ops.
#include <cstdio>
#include <iobench/iobench.hpp>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: one_file DIR\n");
    return 2;
  }
  iobench::Registry registry;
  iobench::register_builtins(registry);
  iobench::register_builtin_workloads(registry);
  iobench::Runner runner(registry, {});
  const iobench::RunResult result = runner.run(std::vector<iobench::Step>{
      {.workload = "disk",
       .params = {{"operation", "write"}, {"bs", "4k"}, {"size", "128k"}},
       .targets = {argv[1]}}});
  const iobench::PhaseResult& phase = result.steps.at(0).phases.at(0);
  const iobench::OpResult& writes = phase.ops.at(phase.op_index("write"));
  std::printf("one_file: %s, %llu writes, %llu bytes\n", iobench::to_string(result.status),
              static_cast<unsigned long long>(writes.ops),
              static_cast<unsigned long long>(writes.bytes));
  const bool exact =
      result.status == iobench::Status::kOk && writes.ops == 32 && writes.bytes == 131072;
  return exact ? 0 : 1;
}
