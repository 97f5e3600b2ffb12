/* qemu-virt-aarch64 board API: GICv2 + virtual timer interrupt, semihosting console and exit. */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "common/qemu_virt.h"
#include "msamp_irq_contexts.h"
#include "msamp_semihost.h"

void board_irq_handler(void);
_Noreturn void board_fault(uintptr_t kind, uintptr_t esr, uintptr_t elr);
int main(void);

static void (*timer_fn)(void);
static uint64_t timer_period;

void board_init(void)
{
    __asm__ volatile("msr daifset, #3" : : : "memory");
    virt_gic_init();
}

void board_console(const char *text)
{
    msamp_semihost_console(text);
}

_Noreturn void board_exit(int status)
{
    msamp_semihost_exit(status & 0xff);
    for (;;)
        __asm__ volatile("wfi");
}

_Noreturn void board_fault(uintptr_t kind, uintptr_t esr, uintptr_t elr)
{
    char line[] = "board: unexpected exception k=0x0000000000000000 esr=0x0000000000000000 "
                  "elr=0x0000000000000000\n";
    board_put_hex(line + 32, kind, 16);
    board_put_hex(line + 55, esr, 16);
    board_put_hex(line + 78, elr, 16);
    board_console(line);
    board_exit(99);
}

static void vtimer_arm(uint64_t ticks)
{
    __asm__ volatile("msr cntv_tval_el0, %0\n\tmsr cntv_ctl_el0, %1\n\tisb"
                     : : "r"(ticks), "r"((uint64_t)1) : "memory");
}

int board_timer_start(uint32_t period_us, void (*fn)(void))
{
    if (fn == NULL || period_us == 0)
        return -1;
    timer_fn = fn;
    timer_period = board_tick_hz() * period_us / 1000000u;
    if (timer_period == 0)
        timer_period = 1;
    virt_gic_enable_ppi(VIRT_VTIMER_PPI, 0xa0);
    vtimer_arm(timer_period);
    __asm__ volatile("msr daifclr, #2" : : : "memory");
    return 0;
}

void board_timer_stop(void)
{
    __asm__ volatile("msr daifset, #2" : : : "memory");
    __asm__ volatile("msr cntv_ctl_el0, %0\n\tisb" : : "r"((uint64_t)0) : "memory");
    virt_gic_disable_ppi(VIRT_VTIMER_PPI);
    timer_fn = NULL;
}

/* Called from irq_entry (start.S) with IRQs masked. */
void board_irq_handler(void)
{
    msamp_irq_enter();
    uint32_t iar = virt_gic_ack();
    if ((iar & 0x3ffu) == VIRT_VTIMER_PPI) {
        vtimer_arm(timer_period);
        if (timer_fn != NULL)
            timer_fn();
    }
    virt_gic_end(iar);
    msamp_irq_exit();
}
