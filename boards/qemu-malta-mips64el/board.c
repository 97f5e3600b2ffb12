/* qemu-malta-mips64(el) board API: CP0 Count/Compare timer interrupt (on the line IntCtl.IPTI
 * names); the UHI semihosting console and exit are boards/common/'s. */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "common/board_common.h"
#include "msamp_mips64.h"
#include "msamp_port.h"

void board_irq_handler(uint32_t cause, uintptr_t epc);
int main(void);

#define ST_IE 0x1u
#define CAUSE_TI (1u << 30) /* release 2: the timer interrupt is pending */
#define CAUSE_EXC(c) (((c) >> 2) & 31u)

static uint32_t timer_period;

static uint32_t cp0_status(void)
{
    uint32_t s;
    __asm__ volatile("mfc0 %0, $12" : "=r"(s));
    return s;
}

static void cp0_set_status(uint32_t s)
{
    __asm__ volatile("mtc0 %0, $12\n\tehb" : : "r"(s) : "memory");
}

static uint32_t cp0_count(void)
{
    uint32_t c;
    __asm__ volatile("mfc0 %0, $9" : "=r"(c));
    return c;
}

/* The interrupt line the timer shares (IntCtl.IPTI), as a Status.IM / Cause.IP bit. */
static uint32_t timer_ip(void)
{
    uint32_t intctl;
    __asm__ volatile("mfc0 %0, $12, 1" : "=r"(intctl));
    return 1u << (8u + ((intctl >> 29) & 7u));
}

static void cp0_set_compare(uint32_t c)
{
    __asm__ volatile("mtc0 %0, $11\n\tehb" : : "r"(c) : "memory");
}

/* Sets Compare one period ahead of Count, again if Count is already past it (QEMU's Count runs
 * in real time, and translating code can take longer than a period): Count meets Compare only
 * once per 2^32 counts, so a missed Compare would silence the timer for a minute. */
static void timer_arm(void)
{
    for (;;) {
        uint32_t next = cp0_count() + timer_period;
        cp0_set_compare(next);
        if ((int32_t)(next - cp0_count()) > 0)
            return;
    }
}

void board_init(void)
{
    cp0_set_status(cp0_status() & ~(ST_IE | 0xff00u));
}

void board_timer_enable(uint32_t period_us)
{
    uint64_t period = (uint64_t)MSAMP_MIPS64_COUNT_HZ * period_us / 1000000u;
    timer_period = period > 0 && period < 0x7fffffffu ? (uint32_t)period : 1u;
    timer_arm();
    cp0_set_status(cp0_status() | timer_ip() | ST_IE);
}

void board_timer_disable(void)
{
    cp0_set_status(cp0_status() & ~(timer_ip() | ST_IE));
}

/* Called from irq_entry (start.S) for every exception, Status.EXL set. */
void board_irq_handler(uint32_t cause, uintptr_t epc)
{
    if (CAUSE_EXC(cause) != 0 || (cause & CAUSE_TI) == 0) {
        const struct board_fault_field f[] = {{"cause=", cause}, {"epc=", epc}};
        board_fault_exit("exception", f, 2, 16);
    }
    timer_arm(); /* also acknowledges the interrupt */
    if (board_timer_fn != NULL)
        board_timer_fn();
    /* No tail call: the handler's frame stays on interrupt stacks. */
    __asm__ volatile("" : : : "memory");
}
