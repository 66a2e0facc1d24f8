#pragma once

// Step results with fixed numbers shared by the text, CSV and bon_csv2* tests. The first three
// carry the figures of real bonnie++ 2.00a runs on this kind of machine, so that the expected
// output is what bonnie++ printed (see each test for the columns where iobench differs on
// purpose).

#include <vector>

#include "tests/bonnie/step_builder.hpp"

namespace iobench::plugins::bonnie::test {

inline constexpr std::uint64_t kFixtureMiB = 1024 * 1024;

/// bonnie++ -s 64 -n 1 -m vm -z 42: per-char tests measured, everything else under 0.5 s.
inline StepBuilder vm_fixture() {
  ReportHeader h;
  h.machine = "vm";
  h.file_size_mib = 64;
  h.per_char_mib = 3;
  h.seed = 42;
  h.files.num_k = 1;
  StepBuilder b(h);
  const double putc_s = seconds_for(3 * 1024, 964);
  const double getc_s = seconds_for(3 * 1024, 1594);
  b.one(PhaseId::kPutc, putc_s, putc_s * 0.995, 3 * kFixtureMiB, 384, 12'420'300)
      .one(PhaseId::kPutBlock, 0.30, 0.1, 64 * kFixtureMiB, 8192, 174'000)
      .one(PhaseId::kRewrite, 0.40, 0.3, 64 * kFixtureMiB, 8192, 253'999)
      .one(PhaseId::kGetc, getc_s, getc_s * 0.999, 3 * kFixtureMiB, 384, 9'145'000)
      .one(PhaseId::kGetBlock, 0.10, 0.1, 64 * kFixtureMiB, 8192, 57'000)
      .phase(PhaseId::kSeeks, std::vector<WorkerFigures>(5, WorkerFigures{0.2, 0.1, 1, 1638, 0}));
  b.mutable_step().phases.back().workers[3].ops[0].latency.record(7'956'000);
  b.one(PhaseId::kSeqCreate, 0.2, 0.1, 0, 1024, 442'000)
      .one(PhaseId::kSeqStat, 0.01, 0.01, 0, 1024, 88'000)
      .one(PhaseId::kSeqDelete, 0.2, 0.1, 0, 1024, 445'000)
      .one(PhaseId::kRandCreate, 0.2, 0.1, 0, 1024, 718'000)
      .one(PhaseId::kRandStat, 0.01, 0.01, 0, 1024, 5'000)
      .one(PhaseId::kRandDelete, 0.2, 0.1, 0, 1024, 85'000);
  return b;
}

/// bonnie++ -s 2048:1048576:100:2 -n 0 -f -m h -z 7 on tmpfs: GiB/s rates, per-char off.
inline StepBuilder big_io_fixture() {
  ReportHeader h;
  h.machine = "h";
  h.file_size_mib = 2048;
  h.io_chunk_bytes = 1048576;
  h.seeks = 100;
  h.seekers = 2;
  h.seed = 7;
  h.files.num_k = 0;
  StepBuilder b(h);
  const double put_s = seconds_for(2048 * 1024, 277711);
  const double rewrite_s = seconds_for(2048 * 1024, 2861782);
  b.one(PhaseId::kPutBlock, put_s, put_s * 0.999, 2048 * kFixtureMiB, 2048, 15'395'000)
      .one(PhaseId::kRewrite, rewrite_s, rewrite_s * 0.995, 2048 * kFixtureMiB, 2048, 3'443'000)
      .one(PhaseId::kGetBlock, 0.4, 0.4, 2048 * kFixtureMiB, 2048, 272'000)
      .phase(PhaseId::kSeeks, {WorkerFigures{0.01, 0.01, 50 * kFixtureMiB, 50, 6'838'000},
                               WorkerFigures{0.01, 0.01, 50 * kFixtureMiB, 50, 1'000}});
  return b;
}

/// bonnie++ -s 0 -n 1:4k:1k:3 -m h: file tests only, two of them over 0.5 s.
inline StepBuilder files_fixture() {
  ReportHeader h;
  h.machine = "h";
  h.file_size_mib = 0;
  h.files = FileSpec{.num_k = 1, .max_bytes = 4096, .min_bytes = 1024, .dirs = 3};
  StepBuilder b(h);
  b.one(PhaseId::kSeqCreate, seconds_for(1024, 1915), 0.52, 0, 1024, 874'000)
      .one(PhaseId::kSeqStat, 0.1, 0.1, 0, 1024, 120'000)
      .one(PhaseId::kSeqDelete, 0.1, 0.1, 0, 1024, 1'828'000)
      .one(PhaseId::kRandCreate, seconds_for(1024, 1469), 0.67, 0, 1024, 1'703'000)
      .one(PhaseId::kRandStat, 0.1, 0.1, 0, 1024, 160'000)
      .one(PhaseId::kRandDelete, 0.1, 0.1, 0, 1024, 7'339'000);
  return b;
}

/// Two copies of 1 GiB: block output at 100 and 50 MiB/s, seeks 4096/s and too fast.
inline StepBuilder copies_fixture() {
  ReportHeader h;
  h.machine = "host";
  h.file_size_mib = 1024;
  h.per_char_mib = 0;
  h.copies = 2;
  h.files.num_k = 0;
  StepBuilder b(h);
  b.phase(PhaseId::kPutBlock,
          {WorkerFigures{10.24, 5.12, 1024 * kFixtureMiB, 131072, 2'000'000},
           WorkerFigures{20.48, 2.048, 1024 * kFixtureMiB, 131072, 150'000'000}});
  std::vector<WorkerFigures> seekers{
      WorkerFigures{1.0, 0.1, 0, 3000, 10'000}, WorkerFigures{2.0, 0.1, 0, 1000, 10'000},
      WorkerFigures{2.0, 0.1, 0, 1000, 10'000}, WorkerFigures{2.0, 0.1, 0, 1000, 10'000},
      WorkerFigures{2.0, 0.1, 0, 2192, 10'000}};
  for (int i = 0; i < 5; ++i)
    seekers.push_back(WorkerFigures{0.2, 0.1, 0, i == 0 ? 8192U : 0U, 10'000});
  b.phase(PhaseId::kSeeks, seekers);
  return b;
}

/// Two repetitions of block output only (10 and 5 MiB/s).
inline StepBuilder repetitions_fixture() {
  ReportHeader h;
  h.machine = "r";
  h.file_size_mib = 100;
  h.per_char_mib = 0;
  h.repetitions = 2;
  h.files.num_k = 0;
  StepBuilder b(h);
  b.phase(PhaseId::kPutBlock, {WorkerFigures{10.0, 1.0, 100 * kFixtureMiB, 12800, 1'000'000}}, 1,
          2);
  b.phase(PhaseId::kPutBlock, {WorkerFigures{20.0, 1.0, 100 * kFixtureMiB, 12800, 1'000'000}}, 2,
          2);
  return b;
}

}  // namespace iobench::plugins::bonnie::test
