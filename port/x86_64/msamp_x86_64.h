/*
 * The x86-64 bare-metal port of msamp (long mode, one CPU, no OS): what a board supplies to it.
 * (Hosted x86-64 programs use port/hosted/.)
 *
 *   contexts   one sampler state for normal execution and one for interrupt handlers: the
 *              board's interrupt entry calls msamp_irq_enter()/exit()
 *              (port/common/msamp_irq_contexts.h) around its handler.
 *   walker     rbp -> {previous rbp, return address}, walked by port/common/msamp_frame_walk.c:
 *              every load checked (8-byte aligned, the record inside [__msamp_stack_lo,
 *              __msamp_stack_hi), strictly increasing), return addresses inside
 *              [__msamp_text_lo, __msamp_text_hi) when the link defines those.
 *   lock       RFLAGS.IF: pushf/cli, restored with popf semantics (sti only if it was set).
 *   time       the TSC, at the rate msamp_x86_64_set_tsc_hz() was given (the board measures it
 *              against a known timer at start-up), MSAMP_X86_64_TSC_HZ until then.
 *   build-id   the GNU build-id note between __msamp_build_id_start and __msamp_build_id_end.
 * Build with -fno-omit-frame-pointer.
 */
#ifndef MSAMP_X86_64_H
#define MSAMP_X86_64_H

#include <stdint.h>

#ifndef MSAMP_X86_64_TSC_HZ
#define MSAMP_X86_64_TSC_HZ 1000000000u
#endif

/* The TSC rate in Hz; call before msamp_init(). */
void msamp_x86_64_set_tsc_hz(uint64_t hz);

#endif
