/*
 * The RISC-V 64 bare-metal port of msamp (machine mode, one hart): what a board supplies to it.
 *
 *   contexts   one sampler state for normal execution and one for trap handlers: the board's
 *              trap entry calls msamp_irq_enter()/exit() (port/common/msamp_irq_contexts.h) around its handler.
 *   walker     gcc and clang frames: fp (s0) is the CFA, ra at fp - 8, previous fp at fp - 16.
 *              Every load checked: 8-byte aligned, the record inside [__msamp_stack_lo,
 *              __msamp_stack_hi), strictly increasing, return addresses inside
 *              [__msamp_text_lo, __msamp_text_hi) when the link defines those.
 *   lock       mstatus.MIE cleared with csrrci, restored from the token.
 *   time       the `time` CSR (rdtime) at MSAMP_RISCV64_TIME_HZ (QEMU virt: 10 MHz).
 *   build-id   the GNU build-id note between __msamp_build_id_start and __msamp_build_id_end.
 * Build with -fno-omit-frame-pointer.
 */
#ifndef MSAMP_RISCV64_H
#define MSAMP_RISCV64_H

#include <stdint.h>

#include "msamp_port.h"

#ifndef MSAMP_RISCV64_WALK_MAX
#define MSAMP_RISCV64_WALK_MAX 256
#endif

#ifndef MSAMP_RISCV64_TIME_HZ
#define MSAMP_RISCV64_TIME_HZ 10000000u
#endif

struct msamp_riscv64_bounds {
    uintptr_t stack_lo, stack_hi; /* stack loads lie in [stack_lo, stack_hi) */
    uintptr_t text_lo, text_hi;   /* return addresses lie in [text_lo, text_hi); both 0: unchecked */
};

/* Frame-chain walk from fp (a CFA): reports each saved ra until fn returns 0 or a check fails.
 * Returns the number of pcs reported. */
unsigned msamp_riscv64_walk_frames(uintptr_t fp, const struct msamp_riscv64_bounds *b,
                                   msamp_frame_fn fn, void *arg);


#endif
