/*
 * The AArch64 bare-metal port of msamp: what a board supplies to it and may call.
 *
 * Implements msamp_port.h for a single core running at EL1 (or EL2/EL3) without an OS:
 *   contexts   one sampler state for thread mode and one per interrupt nesting level; the board's
 *              IRQ entry calls msamp_irq_enter()/exit() (port/common/msamp_irq_contexts.h) around its handler (a board that
 *              does not is still correct: interrupt allocations then find the thread context busy
 *              or share it, and are counted as reentrant instead of sampled when they collide);
 *   walker     AArch64 frame records (x29 -> {previous x29, x30}), every load checked: 8-byte
 *              aligned, the whole record inside the live stack (above the walker's own frame,
 *              below __msamp_stack_hi; __msamp_stack_lo when called off that stack), strictly
 *              increasing, at most MSAMP_AARCH64_WALK_MAX records; stops at a zero return address.
 *              The IRQ entry should end the chain with a {0, 0} record so an interrupt's stacks do
 *              not depend on where it struck;
 *   lock       DAIF: masks IRQ and FIQ, restores the previous mask;
 *   time       the generic timer's virtual count (CNTVCT_EL0) at CNTFRQ_EL0 Hz;
 *   build-id   the GNU build-id note between __msamp_build_id_start and __msamp_build_id_end
 *              (port/common/msamp_build_id.c, shared by the bare-metal ports).
 * The linker script defines those four symbols (see boards/README.md). Build with
 * -fno-omit-frame-pointer; build code that may run from an IRQ with -mgeneral-regs-only or save
 * the FP/SIMD registers in the IRQ entry.
 */
#ifndef MSAMP_AARCH64_H
#define MSAMP_AARCH64_H

#include <stdint.h>

/* Interrupt nesting levels with their own sampler state; deeper levels share the last one. */

/* Hard cap on frame records read by one walk, whatever the callback says. */
#ifndef MSAMP_AARCH64_WALK_MAX
#define MSAMP_AARCH64_WALK_MAX 256
#endif




#endif
