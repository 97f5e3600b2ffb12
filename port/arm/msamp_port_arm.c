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

/* msamp_port_walk() (msamp_arm_capture.c) captures its caller's registers and walks from them
 * here: the tables describe code positions, and the wrapper's frame address alone does not say
 * where in the wrapper the call was. */
void msamp_arm_walk_regs(struct msamp_arm_regs *regs, const void *frame, msamp_frame_fn fn,
                         void *arg)
{
    static const struct msamp_arm_bounds link = {MSAMP_LINK_BOUNDS, (uintptr_t)__exidx_start,
                                                 (uintptr_t)__exidx_end};
    msamp_arm_exidx_walk(regs, (uintptr_t)frame, &link, fn, arg);
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
#define SYST_OURS 5u              /* CSR: enabled, processor clock, no interrupt */
#define ICSR_PENDSTSET (1u << 26) /* SCB ICSR: the SysTick exception is pending */
#define SCB_ICSR (*(volatile uint32_t *)0xe000ed04u)

/* The clock (port/arm/README.md "The clock"), chosen at its first read and kept:
 *   DWT       the cycle counter (ARMv7-M, ARMv8-M mainline) when it exists and advances: SysTick
 *             is not touched. 32 bits extended in software (read at least once per 2^32 cycles).
 *   SYSTICK   SysTick, free-running over 24 bits on the processor clock, started by the port when
 *             nothing runs it (read at least once per 2^24 cycles: msamp_poll() does).
 *   APP       SysTick is the application's (enabled, another reload, e.g. a HAL's 1 kHz tick): never
 *             reconfigured; the time is its tick count (msamp_arm_app_ticks(), the firmware's)
 *             times the period plus the count within the period, at MSAMP_ARM_APP_TICK_HZ times
 *             the period (RVR + 1) per second; a reload the application changes later stops the
 *             time there.
 *   STOPPED   the application's SysTick without msamp_arm_app_ticks(): nothing the port may read
 *             is a clock, and the time stays where it is (drain says so: docs/DRAIN.md).
 * Each read is under the lock. */
enum { CLK_UNSET, CLK_DWT, CLK_SYSTICK, CLK_APP, CLK_STOPPED, CLK_APP_STOPPED };
/* 8 bytes of RAM, as the port's SysTick clock had (the tiny profile's smallest configuration
 * holds to 1 KiB: docs/TINY.md):
 *   last  DWT: the last count; SYSTICK: the count left; APP: the last tick
 *   mode  the source in bits 29..31, then by source:
 *         DWT, SYSTICK  wraps of last's counter seen, bits 0..28 (2^29 wraps: 2.9 years of
 *                       SysTick at 100 MHz, then its time stops; centuries of the DWT's)
 *         APP           SysTick's reload (RVR) in bits 0..23, wraps of the 32-bit tick count in
 *                       bits 24..28 (32 wraps: 4.3 years of a 1 kHz tick)
 *         APP_STOPPED   the same, no longer read: the reload changed
 *         STOPPED       nothing: the time stays at 0 */
static struct {
    uint32_t last, mode;
} clk;
#define CLK_SOURCE (clk.mode >> 29)
#define CLK_REST (clk.mode & 0x1fffffffu)
#define CLK_RELOAD (clk.mode & SYST_MAX)
#define CLK_APP_WRAPS (CLK_REST >> 24)
#define CLK_SET(source, rest) (clk.mode = (uint32_t)(source) << 29 | (rest))

/* The application's tick count (weak reference: 0 when the firmware defines none). */
extern uint32_t msamp_arm_app_ticks(void) __attribute__((weak));

#if MSAMP_ARM_DWT
#define DEMCR (*(volatile uint32_t *)0xe000edfcu)
#define DEMCR_TRCENA (1u << 24)
#define DWT_CTRL (*(volatile uint32_t *)0xe0001000u)
#define DWT_CTRL_NOCYCCNT (1u << 25)
#define DWT_CYCCNT (*(volatile uint32_t *)0xe0001004u)

/* The cycle counter enabled, 1 when it is there and counts (QEMU 7.2 reads the DWT as zeroes). */
static int clock_dwt(void)
{
    DEMCR |= DEMCR_TRCENA;
    if ((DEMCR & DEMCR_TRCENA) == 0 || (DWT_CTRL & DWT_CTRL_NOCYCCNT) != 0)
        return 0;
    DWT_CTRL |= 1u; /* CYCCNTENA */
    uint32_t a = DWT_CYCCNT;
    __asm__ volatile("nop\n\tnop\n\tnop\n\tnop" ::: "memory");
    clk.last = DWT_CYCCNT;
    return clk.last != a;
}
#endif

static void clock_choose(void)
{
#if MSAMP_ARM_DWT
    if (clock_dwt()) {
        CLK_SET(CLK_DWT, 0);
        return;
    }
#endif
    uint32_t csr = SYST_CSR;
    if ((csr & 1u) == 0) {
        SYST_RVR = SYST_MAX;
        SYST_CVR = 0;
        SYST_CSR = SYST_OURS;
        clk.last = SYST_MAX;
        CLK_SET(CLK_SYSTICK, 0);
    } else if ((csr & 7u) == SYST_OURS && (SYST_RVR & SYST_MAX) == SYST_MAX) {
        clk.last = SYST_MAX; /* free-running as the port runs it (started before a re-init) */
        CLK_SET(CLK_SYSTICK, 0);
    } else if (msamp_arm_app_ticks) {
        clk.last = msamp_arm_app_ticks();
        CLK_SET(CLK_APP, SYST_RVR & SYST_MAX);
    } else {
        CLK_SET(CLK_STOPPED, 0); /* the time stays at 0 */
    }
}

/* APP: the ticks and the count within the period read together (again if SysTick wrapped in
 * between); a wrap whose interrupt is still pending (held off by the lock) adds its period. Never
 * goes back: the tick the interrupt then counts stands for the period added. */
static uint64_t clock_app(void)
{
    uint32_t reload = CLK_RELOAD, left, again, ticks, pending;
    do {
        left = SYST_CVR & SYST_MAX;
        ticks = msamp_arm_app_ticks();
        pending = SCB_ICSR & ICSR_PENDSTSET;
        again = SYST_CVR & SYST_MAX;
    } while (again > left);
    if (left > reload)
        left = reload;
    if (ticks < clk.last && CLK_APP_WRAPS < 31u)
        clk.mode += 1u << 24;
    clk.last = ticks;
    uint64_t t = ((uint64_t)CLK_APP_WRAPS << 32 | ticks) * (reload + 1u) + (reload - left);
    if (pending && left != 0)
        t += reload + 1u;
    return t;
}

uint64_t msamp_port_time(void)
{
    msamp_port_lock_t key = msamp_port_lock();
    if (CLK_SOURCE == CLK_UNSET)
        clock_choose();
    uint64_t t;
    switch (CLK_SOURCE) {
#if MSAMP_ARM_DWT
    case CLK_DWT: {
        uint32_t c = DWT_CYCCNT;
        if (c < clk.last)
            clk.mode++;
        clk.last = c;
        t = (uint64_t)CLK_REST << 32 | c;
        break;
    }
#endif
    case CLK_SYSTICK:
        /* SysTick taken over by the application after the port started it, or 2^29 wraps
         * counted (2.9 years at 100 MHz): the time stops. */
        if ((SYST_RVR & SYST_MAX) == SYST_MAX && CLK_REST < 0x1fffffffu) {
            uint32_t left = SYST_CVR & SYST_MAX;
            if (left > clk.last)
                clk.mode++;
            clk.last = left;
        }
        t = (uint64_t)CLK_REST << 24 | (SYST_MAX - clk.last);
        break;
    case CLK_APP:
        if ((SYST_RVR & SYST_MAX) == CLK_RELOAD) {
            t = clock_app();
            break;
        }
        CLK_SET(CLK_APP_STOPPED, CLK_REST); /* a reload the application changed since */
        /* fall through */
    case CLK_APP_STOPPED: /* the time stops, past any it gave (the last tick's period and a
                           * pending one) */
        t = (((uint64_t)CLK_APP_WRAPS << 32 | clk.last) + 2u) * (CLK_RELOAD + 1u);
        break;
    default: /* STOPPED */
        t = 0;
        break;
    }
    msamp_port_unlock(key);
    return t;
}

uint64_t msamp_port_time_hz(void)
{
    msamp_port_lock_t key = msamp_port_lock();
    if (CLK_SOURCE == CLK_UNSET)
        clock_choose();
    /* APP, and APP_STOPPED: the application's tick rate times its period. */
    uint64_t hz = CLK_SOURCE == CLK_APP || CLK_SOURCE == CLK_APP_STOPPED
                      ? (uint64_t)MSAMP_ARM_APP_TICK_HZ * (CLK_RELOAD + 1u)
                      : (uint64_t)MSAMP_ARM_CPU_HZ;
    msamp_port_unlock(key);
    return hz;
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
