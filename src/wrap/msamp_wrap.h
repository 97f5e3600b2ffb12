/* Shared by the wrapper files: the application sees exactly what the real allocator returns (same
 * pointers, same NULLs, same errno: the wrappers never touch it). */
#ifndef MSAMP_WRAP_H
#define MSAMP_WRAP_H

#include "msamp_fast.h"

/* The frame address of the wrapper: the walk starts at the wrapper's caller. */
#define MSAMP_FRAME() __builtin_frame_address(0)

/* A wrapper file's slow function, which records from its own frame: out of line and tail-called by
 * the wrapper, so that its frame's caller is the application. Thumb-1 code gets no tail calls from
 * gcc (ARMv6-M and ARMv8-M baseline: Cortex-M0/M0+/M23) nor from clang on ARMv6-M, where the
 * wrapper's call would leave the wrapper as the caller: there the slow path is inlined into the
 * wrapper and shares its frame. */
#if defined(__thumb__) && !defined(__thumb2__) && !(defined(__clang__) && defined(__ARM_ARCH_8M_BASE__))
#define MSAMP_WRAP_SLOW __attribute__((always_inline)) inline
#else
#define MSAMP_WRAP_SLOW MSAMP_NOINLINE
#endif

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

/* The wrappers that decide first (malloc, calloc, realloc and newlib's _r forms): the fast path
 * charges the countdown and, when no sample is due, passes the call on; otherwise it tail-calls
 * its file's slow function, which decides, calls the allocator and records from its own frame
 * (its caller is then the application's call site: the wrapper built no frame). The pass is a
 * tail call (no frame, no result test) when MSAMP_FAST_TAIL and the call needs no nesting guard
 * (MSAMP_WRAP_TAIL(level)); otherwise the wrapper calls the allocator and reports a NULL for a
 * nonzero size. The wrappers need an optimising build (-O1 or above) for their tail calls. */
#define MSAMP_WRAP_TAIL_1 (MSAMP_FAST_TAIL && MSAMP_CFG_WRAP_NESTED < 1)
#define MSAMP_WRAP_TAIL_2 (MSAMP_FAST_TAIL && MSAMP_CFG_WRAP_NESTED < 2)

/* The unsampled pass that looks at the result (!MSAMP_WRAP_TAIL_level): `call` guarded as
 * MSAMP_NESTED(level) says, a NULL for a nonzero `size` (an expression evaluated only then)
 * reported from the wrapper's frame. */
#define MSAMP_PASS_CHECKED(level, call, size)                                                      \
    do {                                                                                           \
        void *p_;                                                                                  \
        MSAMP_NESTED(level, p_ = (call));                                                          \
        if (MSAMP_UNLIKELY(p_ == NULL)) {                                                          \
            size_t size_ = (size);                                                                 \
            if (size_ != 0)                                                                        \
                msamp_note_fail(size_, MSAMP_FRAME(), MSAMP_FAIL_NULL);                            \
        }                                                                                          \
        return p_;                                                                                 \
    } while (0)

/* calloc's byte count: SIZE_MAX when n * size overflows (the allocator fails it its own way). */
static inline size_t msamp_calloc_total(size_t n, size_t size)
{
    size_t total;
    return __builtin_mul_overflow(n, size, &total) ? SIZE_MAX : total;
}

#endif
