// The system calls whose latency --explain splits, with this architecture's numbers.
#include <sys/syscall.h>

#include "explain_bpf/explain_bpf_shared.h"
#include "explain_bpf/session.hpp"

namespace iobench::detail {
namespace {

#define IOB_CALL(name) \
  ExplainCallName { #name, SYS_##name }
// glibc calls the old forms where the architecture has them (x86_64), the *at forms elsewhere.
#ifdef SYS_unlink
#define IOB_UNLINK IOB_CALL(unlink)
#define IOB_RENAME IOB_CALL(rename)
#define IOB_MKDIR IOB_CALL(mkdir)
#else
#define IOB_UNLINK IOB_CALL(unlinkat)
#define IOB_RENAME IOB_CALL(renameat2)
#define IOB_MKDIR IOB_CALL(mkdirat)
#endif
constexpr ExplainCallName kCalls[] = {
    IOB_CALL(read),
    IOB_CALL(write),
    IOB_CALL(pread64),
    IOB_CALL(pwrite64),
    IOB_CALL(readv),
    IOB_CALL(writev),
    IOB_CALL(preadv2),
    IOB_CALL(pwritev2),
    IOB_CALL(fsync),
    IOB_CALL(fdatasync),
    IOB_CALL(sync_file_range),
    IOB_CALL(msync),
    IOB_CALL(openat),
    IOB_CALL(close),
    IOB_CALL(io_uring_enter),
    IOB_CALL(io_submit),
    IOB_CALL(io_getevents),
    IOB_CALL(fallocate),
    IOB_CALL(ftruncate),
    IOB_UNLINK,
    IOB_RENAME,
    IOB_MKDIR,
    IOB_CALL(newfstatat),
    IOB_CALL(getdents64),
};
#undef IOB_CALL
static_assert(sizeof(kCalls) / sizeof(kCalls[0]) == IOB_NCALLS,
              "explain_bpf_shared.h's IOB_NCALLS is the length of this list");

}  // namespace

const ExplainCallName* explain_bpf_call_names() noexcept { return kCalls; }

}  // namespace iobench::detail
