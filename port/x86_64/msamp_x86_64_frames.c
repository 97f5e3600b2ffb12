/* x86-64 frame-chain walker: rbp points at {previous rbp, return address}. */
#include <stdint.h>

#include "msamp_x86_64.h"

unsigned msamp_x86_64_walk_frames(uintptr_t fp, const struct msamp_x86_64_bounds *b,
                                  msamp_frame_fn fn, void *arg)
{
    unsigned n = 0;

    while (n < MSAMP_X86_64_WALK_MAX) {
        /* The record [fp, fp + 16) inside the stack. */
        if ((fp & 7u) != 0 || fp < b->stack_lo || b->stack_hi < 16u || fp > b->stack_hi - 16u)
            break;
        uintptr_t prev = ((const uintptr_t *)fp)[0];
        uintptr_t ret = ((const uintptr_t *)fp)[1];
        if (ret == 0 || (b->text_hi != 0 && (ret < b->text_lo || ret >= b->text_hi)))
            break;
        n++;
        if (fn(arg, ret) == 0 || prev <= fp)
            break;
        fp = prev;
    }
    return n;
}
