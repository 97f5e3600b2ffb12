/* RISC-V frame-chain walker: fp is the frame's CFA, the return address at fp - 8 and the caller's
 * fp at fp - 16. */
#include <stdint.h>

#include "msamp_riscv64.h"

unsigned msamp_riscv64_walk_frames(uintptr_t fp, const struct msamp_riscv64_bounds *b,
                                   msamp_frame_fn fn, void *arg)
{
    unsigned n = 0;

    while (n < MSAMP_RISCV64_WALK_MAX) {
        /* The record [fp - 16, fp) inside the stack. */
        if ((fp & 7u) != 0 || fp > b->stack_hi || fp < b->stack_lo || fp - b->stack_lo < 16u)
            break;
        uintptr_t ra = ((const uintptr_t *)fp)[-1];
        uintptr_t prev = ((const uintptr_t *)fp)[-2];
        if (ra == 0 || (b->text_hi != 0 && (ra < b->text_lo || ra >= b->text_hi)))
            break;
        n++;
        if (fn(arg, ra) == 0 || prev <= fp)
            break;
        fp = prev;
    }
    return n;
}
