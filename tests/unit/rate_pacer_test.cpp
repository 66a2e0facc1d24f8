// The core's pacer: the open-loop schedule of disk and tiotest (next) and dbench -R's closed loop
// (advance + rebase), checked as exact times.
#include <catch2/catch.hpp>
#include <cstdint>
#include <iobench/rate_pacer.hpp>

using iobench::Arrivals;
using iobench::RateLimit;
using iobench::RatePacer;

TEST_CASE("an open-loop schedule keeps its times whatever the ops' lateness", "[unit][rate]") {
  RatePacer pacer(RateLimit{.ops_per_s = 1000}, 1);  // one op per ms
  pacer.start(5'000'000);
  CHECK(pacer.next(4096) == 5'000'000);
  CHECK(pacer.next(4096) == 6'000'000);
  // However late the worker is now, the ops due meanwhile are the backlog...
  CHECK(pacer.due_by(10'500'000, 4096) == 4);  // due at 7, 8, 9 and 10 ms
  // ...and the next op is still due when it was.
  CHECK(pacer.next(4096) == 7'000'000);
}

TEST_CASE("a bytes-per-second schedule spaces ops by their size", "[unit][rate]") {
  RatePacer pacer(RateLimit{.bytes_per_s = 1e6}, 1);  // 1 MB/s: 1000 bytes take 1 ms
  pacer.start(0);
  CHECK(pacer.next(1000) == 0);
  CHECK(pacer.next(3000) == 1'000'000);
  CHECK(pacer.next(1000) == 4'000'000);
}

TEST_CASE("dbench's closed loop paces by the bytes moved and forgives lateness", "[unit][rate]") {
  RatePacer pacer(RateLimit{.bytes_per_s = 1e6}, 1);
  pacer.start(1'000'000);
  // 2000 bytes moved since the first op: the next is due 2 ms after it.
  CHECK(pacer.advance(2000) == 3'000'000);
  pacer.rebase(3'000'000);  // it started on time
  CHECK(pacer.advance(500) == 3'500'000);
  // It started 10 ms late: the next one counts from its real start, not from when it was due.
  pacer.rebase(13'500'000);
  CHECK(pacer.advance(1000) == 14'500'000);
  // A rebase to an earlier time changes nothing.
  pacer.rebase(1'000);
  CHECK(pacer.advance(0) == 14'500'000);
}

TEST_CASE("Poisson arrivals keep the mean rate", "[unit][rate]") {
  RatePacer pacer(RateLimit{.ops_per_s = 1e6, .arrivals = Arrivals::kPoisson}, 42);
  pacer.start(0);
  constexpr int kOps = 200'000;
  std::uint64_t last = 0;
  for (int i = 0; i < kOps; ++i) last = pacer.next(0);
  // 200k exponential gaps of mean 1 us: the sum is within 1 % of 200 ms (sd 0.22 %).
  CHECK(static_cast<double>(last) == Approx(200e6).epsilon(0.01));
}
