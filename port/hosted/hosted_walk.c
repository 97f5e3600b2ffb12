/* The walk of hosted Linux, bounded by the calling thread's stack: frame chains with
 * port/common/msamp_frame_walk.c (records in msamp_frame_layout.h), MIPS64 code with port/mips64's
 * prologue scanner over the executable's code. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "hosted.h"
#include "msamp_frame_walk.h"
#if defined(__mips64)
#include "msamp_mips64.h"
#endif

void msamp_hosted_stack_bounds(struct msamp_hosted_thread *t)
{
    pthread_attr_t attr;
    void *addr;
    size_t size;

    t->bounds = MSAMP_HOSTED_BOUNDS_NONE;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0 && size > 0) {
        t->stack_lo = (uintptr_t)addr;
        t->stack_hi = (uintptr_t)addr + size;
        t->bounds = MSAMP_HOSTED_BOUNDS_OK;
    }
    pthread_attr_destroy(&attr);
}

void msamp_port_walk(const void *frame, msamp_frame_fn fn, void *arg)
{
    struct msamp_hosted_thread *t = &msamp_hosted_self;

    if (t->bounds == MSAMP_HOSTED_BOUNDS_UNKNOWN)
        msamp_hosted_stack_bounds(t);
    if (t->bounds != MSAMP_HOSTED_BOUNDS_OK)
        return;
    /* Only the part of the stack above the walker's own frame is live and mapped. A frame outside
     * it (a signal's alternate stack, a frame register holding data) ends the walk before any
     * load. */
    uintptr_t lo = (uintptr_t)__builtin_frame_address(0);
    if (lo < t->stack_lo)
        lo = t->stack_lo;
#if defined(__mips64)
    /* Only the executable's own code: a shared library's frames end the walk. */
    struct msamp_mips64_bounds b = {lo, t->stack_hi, msamp_hosted_text_lo, msamp_hosted_text_hi};
    struct msamp_mips64_regs regs;
    if (msamp_hosted_text_hi == 0)
        return;
    msamp_mips64_capture(&regs);
    msamp_mips64_walk(&regs, (uintptr_t)frame, &b, fn, arg);
#elif defined(MSAMP_FRAME_RA)
    struct msamp_bounds b = {lo, t->stack_hi, 0, 0};
    msamp_frame_walk((uintptr_t)frame, &b, fn, arg);
#else
    (void)frame;
    (void)fn;
    (void)arg;
#endif
}
