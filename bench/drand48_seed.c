// LD_PRELOAD helper of bench/filebench_fileset_stats.py: filebench never seeds drand48 (which
// draws its fileset trees and cvar-gamma sizes) nor rand() (its preallocation), so it makes the
// same fileset every run; this seeds both from FB_SEED before filebench's main starts.
// Build: cc -shared -fPIC -o drand48_seed.so bench/drand48_seed.c
#include <stdlib.h>

__attribute__((constructor)) static void seed_from_env(void) {
  const char* s = getenv("FB_SEED");
  if (s == NULL) return;
  srand48(atol(s));
  srand((unsigned)atol(s));
}
