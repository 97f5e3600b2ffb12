/* qemu-virt-aarch64 board API: GICv2 + virtual timer interrupt; the semihosting console and exit
 * are boards/common/'s. */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "common/board_common.h"
#include "common/qemu_virt.h"
#include "msamp_irq_contexts.h"

void board_irq_handler(void);
_Noreturn void board_fault(uintptr_t kind, uintptr_t esr, uintptr_t elr);
int main(void);

static uint64_t timer_period;

void board_init(void)
{
    __asm__ volatile("msr daifset, #3" : : : "memory");
    virt_gic_init();
}

_Noreturn void board_fault(uintptr_t kind, uintptr_t esr, uintptr_t elr)
{
    const struct board_fault_field f[] = {{"k=", kind}, {"esr=", esr}, {"elr=", elr}};
    board_fault_exit("exception", f, 3, 16);
}

static void vtimer_arm(uint64_t ticks)
{
    __asm__ volatile("msr cntv_tval_el0, %0\n\tmsr cntv_ctl_el0, %1\n\tisb"
                     : : "r"(ticks), "r"((uint64_t)1) : "memory");
}

void board_timer_enable(uint32_t period_us)
{
    timer_period = board_tick_hz() * period_us / 1000000u;
    if (timer_period == 0)
        timer_period = 1;
    virt_gic_enable_ppi(VIRT_VTIMER_PPI, 0xa0);
    vtimer_arm(timer_period);
    __asm__ volatile("msr daifclr, #2" : : : "memory");
}

void board_timer_disable(void)
{
    __asm__ volatile("msr daifset, #2" : : : "memory");
    __asm__ volatile("msr cntv_ctl_el0, %0\n\tisb" : : "r"((uint64_t)0) : "memory");
    virt_gic_disable_ppi(VIRT_VTIMER_PPI);
}

/* Called from irq_entry (start.S) with IRQs masked. */
void board_irq_handler(void)
{
    msamp_irq_enter();
    uint32_t iar = virt_gic_ack();
    if ((iar & 0x3ffu) == VIRT_VTIMER_PPI) {
        vtimer_arm(timer_period);
        if (board_timer_fn != NULL)
            board_timer_fn();
    }
    virt_gic_end(iar);
    msamp_irq_exit();
}
