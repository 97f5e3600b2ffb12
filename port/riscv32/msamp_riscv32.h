/*
 * The RISC-V 32 bare-metal port of msamp (RV32IMAC and up, machine mode, one hart): what a board
 * supplies to it. port/riscv64's, in 32-bit words:
 *
 *   contexts   one sampler state for normal execution and one for trap handlers: the board's
 *              trap entry calls msamp_irq_enter()/exit() (port/common/msamp_irq_contexts.h)
 *              around its handler.
 *   walker     gcc and clang frames: fp (s0) is the CFA, ra at fp - 4, previous fp at fp - 8,
 *              walked by port/common/msamp_frame_walk.c: every load checked (4-byte aligned, the
 *              record inside [__msamp_stack_lo, __msamp_stack_hi), strictly increasing), return
 *              addresses inside [__msamp_text_lo, __msamp_text_hi) when the link defines those.
 *   lock       mstatus.MIE cleared with csrrci, restored from the token.
 *   time       the 64-bit `time` CSR read as rdtimeh/rdtime/rdtimeh (a carry between the halves
 *              read again) at MSAMP_RISCV32_TIME_HZ (QEMU virt: 10 MHz).
 *   build-id   the GNU build-id note between __msamp_build_id_start and __msamp_build_id_end.
 * Build with -fno-omit-frame-pointer.
 */
#ifndef MSAMP_RISCV32_H
#define MSAMP_RISCV32_H

#include <stdint.h>

#ifndef MSAMP_RISCV32_TIME_HZ
#define MSAMP_RISCV32_TIME_HZ 10000000u
#endif

#endif
