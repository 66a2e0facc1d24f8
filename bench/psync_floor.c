// The floor for tiotest_fidelity.sh: tiotest's four phases as bare pread/pwrite loops with no
// per-op bookkeeping at all (no clock reads, no statistics), so their rate is what a tool with
// zero overhead would report. Same semantics as the iobench and fio jobs of the script: THREADS
// threads, one file each (ftruncate'd to SIZE first), sequential write + fsync, random writes
// at uniform block-aligned offsets + fsync, sequential read, random read; each phase timed from
// a barrier that releases all threads to the moment the last one finishes.
//
// Build: cc -O2 -pthread -o psync_floor psync_floor.c
// Usage: psync_floor DIR THREADS SIZE_BYTES BS RANDOM_OPS
// Output: one line per phase, "PHASE BYTES SECONDS", e.g. "random_read 819200000 0.2134".
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { kPhases = 4 };
static const char* const kPhaseNames[kPhases] = {"write", "random_write", "read", "random_read"};

static long long size_bytes, block_size, random_ops;
static pthread_barrier_t start_barrier, end_barrier;

struct worker {
  int fd;
  uint64_t rng;
  char* buffer;
  pthread_t thread;
};

static void die(const char* what) {
  fprintf(stderr, "psync_floor: %s: %s\n", what, strerror(errno));
  exit(2);
}

static uint64_t next_random(uint64_t* state) {  // xorshift64*
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 2685821657736338717ULL;
}

static void run_phase(struct worker* w, int phase) {
  const long long blocks = size_bytes / block_size;
  const int random = phase == 1 || phase == 3;
  const int writing = phase <= 1;
  const long long ops = random ? random_ops : blocks;
  for (long long i = 0; i < ops; ++i) {
    const off_t offset =
        (off_t)(random ? (long long)(next_random(&w->rng) % (uint64_t)blocks) : i) * block_size;
    const ssize_t done = writing ? pwrite(w->fd, w->buffer, (size_t)block_size, offset)
                                 : pread(w->fd, w->buffer, (size_t)block_size, offset);
    if (done != block_size) die(writing ? "pwrite" : "pread");
  }
  if (writing && fsync(w->fd) != 0) die("fsync");
}

static void* worker_main(void* arg) {
  struct worker* w = arg;
  for (int phase = 0; phase < kPhases; ++phase) {
    pthread_barrier_wait(&start_barrier);
    run_phase(w, phase);
    pthread_barrier_wait(&end_barrier);
  }
  return NULL;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: psync_floor DIR THREADS SIZE_BYTES BS RANDOM_OPS\n");
    return 2;
  }
  const int threads = atoi(argv[2]);
  size_bytes = atoll(argv[3]);
  block_size = atoll(argv[4]);
  random_ops = atoll(argv[5]);
  if (threads < 1 || block_size < 1 || size_bytes < block_size || random_ops < 1) {
    fprintf(stderr, "psync_floor: bad arguments\n");
    return 2;
  }
  struct worker* workers = calloc((size_t)threads, sizeof *workers);
  if (workers == NULL) die("calloc");
  char path[4096];
  for (int t = 0; t < threads; ++t) {
    snprintf(path, sizeof path, "%s/floor.%d", argv[1], t);
    workers[t].fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    if (workers[t].fd < 0) die(path);
    if (ftruncate(workers[t].fd, size_bytes) != 0) die("ftruncate");
    workers[t].rng = 0x9E3779B97F4A7C15ULL * (uint64_t)(t + 1);
    const int error = posix_memalign((void**)&workers[t].buffer, 4096, (size_t)block_size);
    if (error != 0) {
      errno = error;  // posix_memalign returns its error instead of setting errno
      die("posix_memalign");
    }
    memset(workers[t].buffer, 0x5a, (size_t)block_size);
  }
  pthread_barrier_init(&start_barrier, NULL, (unsigned)threads + 1);
  pthread_barrier_init(&end_barrier, NULL, (unsigned)threads + 1);
  for (int t = 0; t < threads; ++t) {
    if (pthread_create(&workers[t].thread, NULL, worker_main, &workers[t]) != 0) die("thread");
  }
  for (int phase = 0; phase < kPhases; ++phase) {
    const double start = now_s();
    pthread_barrier_wait(&start_barrier);
    pthread_barrier_wait(&end_barrier);
    const double seconds = now_s() - start;
    const int random = phase == 1 || phase == 3;
    // Bytes really moved: whole blocks only, like the tools it is compared with.
    const long long bytes = threads * (random ? random_ops : size_bytes / block_size) * block_size;
    printf("%s %lld %.6f\n", kPhaseNames[phase], bytes, seconds);
  }
  for (int t = 0; t < threads; ++t) {
    pthread_join(workers[t].thread, NULL);
    close(workers[t].fd);
    snprintf(path, sizeof path, "%s/floor.%d", argv[1], t);
    unlink(path);
  }
  return 0;
}
