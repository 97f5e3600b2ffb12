/* The 32-bit ARM bare-metal port: contexts, walker choice, PRIMASK/CPSR lock, timer. Cortex-M or
 * Cortex-A from the compiler's target profile. */
#include <stdint.h>

#include "msamp_arm.h"
#include "msamp_port.h"
#include "msamp_port_shapes.h"

#if defined(__ARM_ARCH_PROFILE)
#if __ARM_ARCH_PROFILE == 'M'
#define CORTEX_M 1
#endif
#endif
#ifndef CORTEX_M
#define CORTEX_M 0
#endif

#if MSAMP_ARM_UNWINDER == MSAMP_ARM_UNWIND_EXIDX
extern const char __exidx_start[], __exidx_end[];

/* Unwinds from this function's own state: the tables describe code positions, and the wrapper's
 * frame address alone does not say where in the wrapper the call was. */
void msamp_port_walk(const void *frame, msamp_frame_fn fn, void *arg)
{
    static const struct msamp_arm_bounds link = {MSAMP_LINK_BOUNDS, (uintptr_t)__exidx_start,
                                                 (uintptr_t)__exidx_end};
    struct msamp_arm_regs regs;

    /* r0-r3 and r12 are not preserved across calls: unknown, and no opcode of ours needs them. */
    regs.r[0] = regs.r[1] = regs.r[2] = regs.r[3] = regs.r[12] = 0;
    msamp_arm_capture(&regs);
    msamp_arm_exidx_walk(&regs, (uintptr_t)frame, &link, fn, arg);
}
#elif MSAMP_ARM_UNWINDER != MSAMP_ARM_UNWIND_FRAME
#error "MSAMP_ARM_UNWINDER: MSAMP_ARM_UNWIND_FRAME or MSAMP_ARM_UNWIND_EXIDX"
#endif
/* The frame unwinder's msamp_port_walk() is port/common/msamp_frame_walk.c's. */

#if CORTEX_M && MSAMP_PORT_RTOS
/* An RTOS layer (port/rtos/) supplies the contexts, the lock and the clock. */
#elif CORTEX_M
static struct msamp_context contexts[2];

/* Thread mode, or any exception handler (IPSR holds the active exception number). */
struct msamp_context *msamp_port_context(void)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    return &contexts[(ipsr & 0x1ffu) != 0];
}

MSAMP_PORT_LOCK_SAVED(uint32_t, "mrs %0, primask\n\tcpsid i", "msr primask, %0")

#define SYST_CSR (*(volatile uint32_t *)0xe000e010u)
#define SYST_RVR (*(volatile uint32_t *)0xe000e014u)
#define SYST_CVR (*(volatile uint32_t *)0xe000e018u)
#define SYST_MAX 0xffffffu

/* SysTick counts down 24 bits (0.67 s at 25 MHz) and wraps; each read under the lock notices a
 * wrap since the previous one, so the time stays monotonic as long as something (msamp_poll(), an
 * allocation) reads it at least once per wrap period. No interrupt is needed. */
static uint32_t systick_last, systick_wraps;

uint64_t msamp_port_time(void)
{
    msamp_port_lock_t key = msamp_port_lock();
    if ((SYST_CSR & 1u) == 0) {
        SYST_RVR = SYST_MAX;
        SYST_CVR = 0;
        SYST_CSR = 5u; /* processor clock, enabled, no interrupt */
        systick_last = SYST_MAX;
    }
    uint32_t left = SYST_CVR & SYST_MAX;
    if (left > systick_last)
        systick_wraps++;
    systick_last = left;
    uint64_t t = (uint64_t)systick_wraps << 24 | (SYST_MAX - left);
    msamp_port_unlock(key);
    return t;
}

uint64_t msamp_port_time_hz(void)
{
    return MSAMP_ARM_CPU_HZ;
}
#else
/* Thread (USR, SYS, SVC), IRQ, FIQ, any other exception mode. */
static struct msamp_context contexts[4];

struct msamp_context *msamp_port_context(void)
{
    uint32_t cpsr;
    __asm__ volatile("mrs %0, cpsr" : "=r"(cpsr));
    switch (cpsr & 0x1fu) {
    case 0x10u: /* USR */
    case 0x13u: /* SVC */
    case 0x1fu: /* SYS */
        return &contexts[0];
    case 0x12u:
        return &contexts[1];
    case 0x11u:
        return &contexts[2];
    default:
        return &contexts[3];
    }
}

MSAMP_PORT_LOCK_SAVED(uint32_t, "mrs %0, cpsr\n\tcpsid if", "msr cpsr_c, %0")

MSAMP_PORT_TIME_COUNTER("isb\n\tmrrc p15, 1, %Q0, %R0, c14")
MSAMP_PORT_TIME_HZ_REGISTER(uint32_t, "mrc p15, 0, %0, c14, c0, 0")
#endif
