// The floor for engine_proof.py: BS-byte preads at uniform random block-aligned offsets of FILE,
// OPS of them, with no clock read, statistics or bookkeeping per op beyond the offset's random
// number: the rate a tool with zero overhead of its own would report.
//
// With "timed" (x86-64 only), each op also reads the time-stamp counter once after its pread
// (LFENCE; RDTSC: the previous op's end is this op's start) and counts the difference in a
// log-linear histogram, 32 sub-buckets per power of two: about the least a tool that times every
// op with the TSC adds. Its rate over the plain loop's is a reference for per-op latency's cost.
//
// Build: cc -O2 -o pread_loop pread_loop.c
// Usage: pread_loop FILE BS OPS [timed]
// Output: "OPS SECONDS"
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  if (argc != 4 && !(argc == 5 && strcmp(argv[4], "timed") == 0)) {
    fprintf(stderr, "usage: pread_loop FILE BS OPS [timed]\n");
    return 2;
  }
  const int timed = argc == 5;
#if !defined(__x86_64__)
  if (timed) {
    fprintf(stderr, "pread_loop: timed needs x86-64 (RDTSC)\n");
    return 2;
  }
#endif
  const long long bs = atoll(argv[2]);
  const long long ops = atoll(argv[3]);
  const int fd = open(argv[1], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || bs <= 0 || ops <= 0) {
    fprintf(stderr, "pread_loop: %s: %s\n", argv[1], strerror(errno));
    return 2;
  }
  const uint64_t blocks = (uint64_t)st.st_size / (uint64_t)bs;
  char* buffer = aligned_alloc(4096, (size_t)bs);
  uint64_t x = 0x9E3779B97F4A7C15ULL;
  static uint64_t histogram[64 * 32];
  uint64_t last = 0;
#if defined(__x86_64__)
  if (timed) last = __rdtsc();
#endif
  const double start = now();
  for (long long i = 0; i < ops; ++i) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    const uint64_t block = (uint64_t)(((unsigned __int128)(x * 0x2545F4914F6CDD1DULL) * blocks) >> 64);
    if (pread(fd, buffer, (size_t)bs, (off_t)(block * (uint64_t)bs)) != bs) {
      fprintf(stderr, "pread_loop: short read: %s\n", strerror(errno));
      return 1;
    }
#if defined(__x86_64__)
    if (timed) {
      _mm_lfence();
      const uint64_t t = __rdtsc();
      const uint64_t ticks = t - last;
      const unsigned msb = ticks < 32 ? 0 : 63u - (unsigned)__builtin_clzll(ticks);
      ++histogram[ticks < 32 ? ticks : (msb - 4) * 32 + ((ticks >> (msb - 5)) & 31)];
      last = t;
    }
#endif
  }
  const double seconds = now() - start;
  uint64_t counted = 0;
  for (size_t i = 0; i < sizeof histogram / sizeof histogram[0]; ++i) counted += histogram[i];
  if (timed && counted != (uint64_t)ops) {
    fprintf(stderr, "pread_loop: %llu of %lld ops counted\n", (unsigned long long)counted, ops);
    return 1;
  }
  printf("%lld %.6f\n", ops, seconds);
  return 0;
}
