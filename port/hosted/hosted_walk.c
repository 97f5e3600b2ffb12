/* Frame-pointer walk for hosted Linux, bounded by the calling thread's stack. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "hosted.h"

/*
 * Frame record layout around the frame pointer, in words: where the caller's frame pointer and the
 * return address are saved (docs/HOSTED.md, BOARDS.md). REC_BELOW/REC_ABOVE are the bytes of the
 * record below and from the frame pointer, so [fp - REC_BELOW, fp + REC_ABOVE) must lie in the stack.
 */
#define W ((intptr_t)sizeof(uintptr_t))
#if defined(__x86_64__) || defined(__aarch64__) || (defined(__arm__) && defined(__clang__))
/* rbp / x29 / clang's r11 (ARM) or r7 (Thumb): {previous fp, return address} at fp. */
#define FP_PREV 0
#define FP_RET 1
#elif defined(__riscv)
/* fp is the CFA: ra at fp - 8, previous fp at fp - 16. */
#define FP_PREV (-2)
#define FP_RET (-1)
#elif defined(__arm__) && !defined(__thumb__)
/* gcc ARM mode: fp points at the saved lr, the previous fp is the word below. */
#define FP_PREV (-1)
#define FP_RET 0
#elif defined(__mips64)
/* No frame chain: port/mips64's prologue scanner, over the executable's code. */
#define MSAMP_HOSTED_MIPS64 1
#include "msamp_mips64.h"
#else
/* No frame chain (mips64 gcc keeps none; gcc Thumb-2 neither): record no frames. */
#define MSAMP_HOSTED_NO_CHAIN 1
#endif

#if !defined(MSAMP_HOSTED_NO_CHAIN) && !defined(MSAMP_HOSTED_MIPS64)
#define REC_LOW (FP_PREV < FP_RET ? FP_PREV : FP_RET)
#define REC_HIGH (FP_PREV > FP_RET ? FP_PREV : FP_RET)
#define REC_BELOW ((uintptr_t)(REC_LOW < 0 ? -REC_LOW * W : 0))
#define REC_ABOVE ((uintptr_t)((REC_HIGH + 1) * W))
/* A hard cap besides the caller's: a walk ends even if fn never says stop. */
#define WALK_CAP 1024
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

#if defined(MSAMP_HOSTED_MIPS64)
void msamp_port_walk(const void *frame, msamp_frame_fn fn, void *arg)
{
    struct msamp_hosted_thread *t = &msamp_hosted_self;
    struct msamp_mips64_bounds b;
    struct msamp_mips64_regs regs;

    if (t->bounds == MSAMP_HOSTED_BOUNDS_UNKNOWN)
        msamp_hosted_stack_bounds(t);
    if (t->bounds != MSAMP_HOSTED_BOUNDS_OK || msamp_hosted_text_hi == 0)
        return;
    b.stack_lo = (uintptr_t)__builtin_frame_address(0);
    if (b.stack_lo < t->stack_lo)
        b.stack_lo = t->stack_lo;
    b.stack_hi = t->stack_hi;
    /* Only the executable's own code: a shared library's frames end the walk. */
    b.text_lo = msamp_hosted_text_lo;
    b.text_hi = msamp_hosted_text_hi;
    msamp_mips64_capture(&regs);
    msamp_mips64_walk(&regs, (uintptr_t)frame, &b, fn, arg);
}
#else
void msamp_port_walk(const void *frame, msamp_frame_fn fn, void *arg)
{
#ifdef MSAMP_HOSTED_NO_CHAIN
    (void)frame;
    (void)fn;
    (void)arg;
#else
    struct msamp_hosted_thread *t = &msamp_hosted_self;
    uintptr_t fp = (uintptr_t)frame;
    uintptr_t lo, hi;

    if (t->bounds == MSAMP_HOSTED_BOUNDS_UNKNOWN)
        msamp_hosted_stack_bounds(t);
    if (t->bounds != MSAMP_HOSTED_BOUNDS_OK)
        return;
    /* Only the part of the stack above the walker's own frame is live and mapped. */
    lo = (uintptr_t)__builtin_frame_address(0);
    if (lo < t->stack_lo)
        lo = t->stack_lo;
    hi = t->stack_hi;
    for (unsigned n = 0; n < WALK_CAP; n++) {
        const uintptr_t *rec;
        uintptr_t next, pc;

        /* fp outside the stack (a signal's alternate stack, a frame without a frame pointer
         * whose register holds data) ends the walk before any load. */
        if ((fp & (uintptr_t)(W - 1)) != 0 || fp < lo + REC_BELOW || fp > hi - REC_ABOVE)
            return;
        rec = (const uintptr_t *)fp;
        next = rec[FP_PREV];
        pc = rec[FP_RET];
#if defined(__arm__)
        pc &= ~(uintptr_t)1; /* Thumb bit */
#endif
        if (pc == 0 || !fn(arg, pc))
            return;
        /* Frames only get older towards the stack base: anything else is not a frame chain. */
        if (next <= fp)
            return;
        fp = next;
    }
#endif
}
#endif
