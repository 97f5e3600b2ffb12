/* Shared by the wrapper files: the application sees exactly what the real allocator returns (same
 * pointers, same NULLs, same errno: the wrappers never touch it). */
#ifndef MSAMP_WRAP_H
#define MSAMP_WRAP_H

#include "../msamp_internal.h"

/* The frame address of the wrapper: the walk starts at the wrapper's caller. */
#define MSAMP_FRAME() __builtin_frame_address(0)

#define MSAMP_ENOMEM 12 /* ENOMEM on every platform msamp supports (freestanding has no errno.h) */

#if MSAMP_CFG_GIANT_BYTES
/* The giant-allocation guard: refuse before the allocator sees the request, and report it (a FAIL
 * record of kind MSAMP_FAIL_GIANT with the caller's stack and the size). Not inside a guarded
 * call (MSAMP_NESTED): the outer wrapper judged the request, and an allocator's own inner request
 * (newlib's memalign asks _malloc_r for more than the caller did) is not the application's. */
#define MSAMP_REFUSE_GIANT(size, fail)                                                             \
    do {                                                                                           \
        if (MSAMP_UNLIKELY((size) >= (size_t)MSAMP_CFG_GIANT_BYTES) && !msamp_nested_now()) {     \
            msamp_note_fail(size, MSAMP_FRAME(), MSAMP_FAIL_GIANT);                                \
            msamp_port_refused(size);                                                              \
            return fail;                                                                           \
        }                                                                                          \
    } while (0)
#else
#define MSAMP_REFUSE_GIANT(size, fail) ((void)0)
#endif

/* The real function's call of a wrapper whose real function may call other wrapped functions
 * (msamp_nest_begin, MSAMP_CFG_WRAP_NESTED): MSAMP_NESTED(level, call) is `call` guarded when
 * MSAMP_CFG_WRAP_NESTED is at least level, `call` alone otherwise. */
#define MSAMP_NESTED(level, call)                                                                  \
    do {                                                                                           \
        if (MSAMP_CFG_WRAP_NESTED >= (level)) {                                                    \
            struct msamp_nest nest_;                                                               \
            msamp_nest_begin(&nest_);                                                              \
            call;                                                                                  \
            msamp_nest_end(&nest_);                                                                \
        } else {                                                                                   \
            call;                                                                                  \
        }                                                                                          \
    } while (0)

#endif
