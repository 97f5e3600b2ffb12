/* qemu-virt-arm board API: GICv2 + virtual timer interrupt, semihosting console and exit. */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "common/qemu_virt.h"
#include "msamp_arm.h"
#include "msamp_port.h"
#include "msamp_semihost.h"

void board_irq_handler(void);
_Noreturn void board_fault(uint32_t cpsr, uint32_t lr);
int main(void);

static void (*timer_fn)(void);
static uint32_t timer_period;

void board_init(void)
{
    __asm__ volatile("cpsid if" : : : "memory");
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

_Noreturn void board_fault(uint32_t cpsr, uint32_t lr)
{
    char line[] = "board: unexpected exception cpsr=0x00000000 lr=0x00000000\n";
    board_put_hex(line + 35, cpsr, 8);
    board_put_hex(line + 49, lr, 8);
    board_console(line);
    board_exit(99);
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

int board_timer_start(uint32_t period_us, void (*fn)(void))
{
    if (fn == NULL || period_us == 0)
        return -1;
    timer_fn = fn;
    uint64_t period = board_tick_hz() * period_us / 1000000u;
    timer_period = period > 0 && period < 0x7fffffffu ? (uint32_t)period : 1u;
    virt_gic_enable_ppi(VIRT_VTIMER_PPI, 0xa0);
    vtimer_arm(timer_period);
    __asm__ volatile("cpsie i" : : : "memory");
    return 0;
}

void board_timer_stop(void)
{
    __asm__ volatile("cpsid i" : : : "memory");
    __asm__ volatile("mcr p15, 0, %0, c14, c3, 1\n\tisb" : : "r"(0u) : "memory");
    virt_gic_disable_ppi(VIRT_VTIMER_PPI);
    timer_fn = NULL;
}

/* Called from irq_entry (start.S) in IRQ mode, IRQs masked. */
void board_irq_handler(void)
{
    uint32_t iar = virt_gic_ack();
    if ((iar & 0x3ffu) == VIRT_VTIMER_PPI) {
        vtimer_arm(timer_period);
        if (timer_fn != NULL)
            timer_fn();
    }
    virt_gic_end(iar);
}
