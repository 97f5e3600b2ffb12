/*
 * The 32-bit ARM bare-metal port of msamp (Cortex-A in ARM or Thumb state, Cortex-M): what a
 * board supplies to it and may call. See port/arm/README.md for which unwinder to use when.
 *
 *   contexts   Cortex-M: thread mode and handler mode (IPSR != 0) have their own sampler state.
 *              Cortex-A: the processor mode picks it (USR/SYS, IRQ, FIQ, any other).
 *   walker     chosen at compile time (MSAMP_ARM_UNWINDER):
 *              - frame chain (port/common/msamp_frame_walk.c), for clang (ARM and Thumb: fp ->
 *                {previous fp, lr}, fp = r11 or r7) and gcc in ARM state (fp points at the saved
 *                lr, previous fp at fp - 4);
 *              - .ARM.exidx tables (EHABI compact model), for gcc in Thumb state, which keeps no
 *                frame chain: build everything with -funwind-tables.
 *              Every load is checked: aligned, inside [__msamp_stack_lo, __msamp_stack_hi),
 *              strictly increasing; the Thumb bit is stripped; Cortex-M EXC_RETURN values
 *              (0xFxxxxxxx) and a zero return address end the walk.
 *   lock       Cortex-M: PRIMASK; Cortex-A: CPSR I and F bits.
 *   time       Cortex-A: the generic timer's virtual count at CNTFRQ Hz. Cortex-M: the DWT cycle
 *              counter where it counts (MSAMP_ARM_DWT), else SysTick: started by the port when
 *              nothing runs it (24 bits on the processor clock, MSAMP_ARM_CPU_HZ), or the
 *              application's, never reconfigured, read with its tick (msamp_arm_app_ticks(),
 *              MSAMP_ARM_APP_TICK_HZ). Counters are extended to 64 bits in software: read the
 *              time (msamp_poll() does) at least once per wrap.
 *   build-id   the GNU build-id note between __msamp_build_id_start and __msamp_build_id_end.
 * The linker script defines those symbols, and for the exidx walker keeps .ARM.exidx between
 * __exidx_start and __exidx_end and code between __msamp_text_lo and __msamp_text_hi.
 */
#ifndef MSAMP_ARM_H
#define MSAMP_ARM_H

#include <stdint.h>

#include "msamp_link_bounds.h"
#include "msamp_port.h"

#define MSAMP_ARM_UNWIND_FRAME 1
#define MSAMP_ARM_UNWIND_EXIDX 2

/* Which unwinder msamp_port_walk() uses. Default: exidx for gcc in Thumb state, else frames. */
#ifndef MSAMP_ARM_UNWINDER
#if defined(__thumb__) && !defined(__clang__)
#define MSAMP_ARM_UNWINDER MSAMP_ARM_UNWIND_EXIDX
#else
#define MSAMP_ARM_UNWINDER MSAMP_ARM_UNWIND_FRAME
#endif
#endif

/* Frame record layouts: where the saved lr and previous fp sit relative to fp (the frame walker
 * is port/common/msamp_frame_walk.c; port/arm/msamp_frame_layout.h gives it the offsets). */
#define MSAMP_ARM_FRAME_AAPCS 1 /* clang, ARM and Thumb: {previous fp, lr} at fp */
#define MSAMP_ARM_FRAME_GCC 2   /* gcc ARM state: lr at fp, previous fp at fp - 4 */
#define MSAMP_ARM_FRAME_APCS 3  /* gcc -mapcs-frame: lr at fp - 4, previous fp at fp - 12 */

#ifndef MSAMP_ARM_FRAME_LAYOUT
#if defined(__clang__)
#define MSAMP_ARM_FRAME_LAYOUT MSAMP_ARM_FRAME_AAPCS
#else
#define MSAMP_ARM_FRAME_LAYOUT MSAMP_ARM_FRAME_GCC
#endif
#endif

/* Hard cap on frames read by one walk (either unwinder), whatever the callback says. */
#ifndef MSAMP_ARM_WALK_MAX
#define MSAMP_ARM_WALK_MAX 256
#endif

/* Cortex-M core clock in Hz (the rate of DWT CYCCNT and of SysTick on the processor clock). */
#ifndef MSAMP_ARM_CPU_HZ
#define MSAMP_ARM_CPU_HZ 25000000u
#endif

/* Cortex-M: use the DWT cycle counter when the core has one and it counts (1, the default on
 * ARMv7-M and ARMv8-M mainline: Cortex-M3, M4, M7, M33), or never (0: a debugger owns the DWT). */
#ifndef MSAMP_ARM_DWT
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__)
#define MSAMP_ARM_DWT 1
#else
#define MSAMP_ARM_DWT 0
#endif
#endif

/* Cortex-M, SysTick run by the application (enabled with its own reload and interrupt before
 * msamp_init, as an STM32 HAL's HAL_InitTick does): the rate of its tick interrupts, which
 * msamp_arm_app_ticks() counts (HAL_GetTick() at the HAL's default 1 kHz). */
#ifndef MSAMP_ARM_APP_TICK_HZ
#define MSAMP_ARM_APP_TICK_HZ 1000u
#endif

/* Defined by a Cortex-M firmware whose application runs SysTick (weak in the port: without it and
 * without a counting DWT, the time of such a firmware stands still): the number of SysTick
 * interrupts taken so far, one per SysTick period (e.g. `return HAL_GetTick();`). Called under
 * msamp's lock (interrupts masked); must not block. */
uint32_t msamp_arm_app_ticks(void);

/* What the exidx walker may read: the stack and the code of mem (return addresses inside the code;
 * both 0: not checked), the index table [exidx_lo, exidx_hi) and extab words in
 * [mem.text_lo, exidx_hi), or after the index when the link puts .ARM.extab there: up to the end
 * of the furthest entry the index names, found once by a pass that checks the index
 * (msamp_arm_exidx.c). */
struct msamp_arm_bounds {
    struct msamp_bounds mem;
    uintptr_t exidx_lo, exidx_hi;
};

/* Register state for the exidx walker: r[0..15], r[13] = sp, r[15] = pc (a return address). */
struct msamp_arm_regs {
    uint32_t r[16];
};

/* One unwind step by the exidx entry covering r[15]: on success updates regs to the caller's
 * state (sp strictly higher) and returns 1; returns 0 when it cannot prove the step, leaving regs
 * partly unwound (a walk ends there). */
int msamp_arm_exidx_step(struct msamp_arm_regs *regs, const struct msamp_arm_bounds *b);

/* Unwinds from regs; the first function whose frame [sp, CFA) holds `frame` (the wrapper's frame
 * address) is the wrapper: reports the pc of each caller from there on, until fn returns 0 or a
 * step fails. Returns the count. */
unsigned msamp_arm_exidx_walk(struct msamp_arm_regs *regs, uintptr_t frame,
                              const struct msamp_arm_bounds *b, msamp_frame_fn fn, void *arg);

#ifdef MSAMP_ARM_TEST_HOOKS
/* For tests/ports/walk_test.c (a Linux program under qemu-user, where the M-profile lock is no
 * instruction): the lock that guards the unwind cache's writes (walk_test.c's), the entries decoded
 * so far (the cache's misses), the slot a return address takes in each way (0, 1), and a function the cached step
 * calls between reading an entry and checking it (an interrupt that walks meanwhile). */
msamp_port_lock_t msamp_arm_test_lock(void);
void msamp_arm_test_unlock(msamp_port_lock_t key);
extern unsigned long msamp_arm_exidx_decodes;
unsigned msamp_arm_exidx_cache_slot(uint32_t pc, unsigned way);
extern void (*volatile msamp_arm_exidx_mid_read)(void);
#endif

/* Fills r4-r11, sp, lr and pc (= lr: the return address into the caller) of its caller. */
void msamp_arm_capture(struct msamp_arm_regs *regs);

/* The exidx walker's msamp_port_walk(): the walk over the link's bounds from regs, its caller's
 * state on entry (msamp_arm_capture.c). */
void msamp_arm_walk_regs(struct msamp_arm_regs *regs, const void *frame, msamp_frame_fn fn,
                         void *arg);

#endif
