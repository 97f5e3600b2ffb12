/* qemu-virt-arm board API: GICv2 + virtual timer interrupt; the semihosting console and exit are
 * boards/common/'s. */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "common/board_common.h"
#include "common/qemu_virt.h"
#include "msamp_arm.h"
#include "msamp_port.h"

void board_irq_handler(void);
_Noreturn void board_fault(uint32_t cpsr, uint32_t lr);
int main(void);

static uint32_t timer_period;

void board_init(void)
{
    __asm__ volatile("cpsid if" : : : "memory");
    virt_gic_init();
}

_Noreturn void board_fault(uint32_t cpsr, uint32_t lr)
{
    const struct board_fault_field f[] = {{"cpsr=", cpsr}, {"lr=", lr}};
    board_fault_exit("exception", f, 2, 8);
}

static void vtimer_arm(uint32_t ticks)
{
    __asm__ volatile("mcr p15, 0, %0, c14, c3, 0\n\t" /* CNTV_TVAL */
                     "mcr p15, 0, %1, c14, c3, 1\n\t" /* CNTV_CTL: enable */
                     "isb"
                     :
                     : "r"(ticks), "r"(1u)
                     : "memory");
}

void board_timer_enable(uint32_t period_us)
{
    uint64_t period = board_tick_hz() * period_us / 1000000u;
    timer_period = period > 0 && period < 0x7fffffffu ? (uint32_t)period : 1u;
    virt_gic_enable_ppi(VIRT_VTIMER_PPI, 0xa0);
    vtimer_arm(timer_period);
    __asm__ volatile("cpsie i" : : : "memory");
}

void board_timer_disable(void)
{
    __asm__ volatile("cpsid i" : : : "memory");
    __asm__ volatile("mcr p15, 0, %0, c14, c3, 1\n\tisb" : : "r"(0u) : "memory");
    virt_gic_disable_ppi(VIRT_VTIMER_PPI);
}

/* Called from irq_entry (start.S) in IRQ mode, IRQs masked. */
void board_irq_handler(void)
{
    uint32_t iar = virt_gic_ack();
    if ((iar & 0x3ffu) == VIRT_VTIMER_PPI) {
        vtimer_arm(timer_period);
        if (board_timer_fn != NULL)
            board_timer_fn();
    }
    virt_gic_end(iar);
}
