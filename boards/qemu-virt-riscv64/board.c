/* qemu-virt-riscv64 board API: CLINT machine timer interrupt; the semihosting console and exit are
 * boards/common/'s. */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "common/board_common.h"
#include "msamp_irq_contexts.h"
#include "msamp_port.h"
#include "msamp_riscv64.h"

void board_irq_handler(uint64_t mcause, uint64_t mepc);
int main(void);

#define CLINT_MTIMECMP 0x2004000u
#define CLINT_MTIME 0x200bff8u
#define MIE_MTIE (1u << 7)
#define MCAUSE_INTERRUPT (1ull << 63)
#define IRQ_M_TIMER 7u

static uint64_t timer_period;

static volatile uint64_t *mmio64(uintptr_t addr)
{
    return (volatile uint64_t *)addr;
}

void board_init(void)
{
    __asm__ volatile("csrci mstatus, 8" : : : "memory");
}

void board_timer_enable(uint32_t period_us)
{
    timer_period = (uint64_t)MSAMP_RISCV64_TIME_HZ * period_us / 1000000u;
    if (timer_period == 0)
        timer_period = 1;
    *mmio64(CLINT_MTIMECMP) = *mmio64(CLINT_MTIME) + timer_period;
    __asm__ volatile("csrs mie, %0\n\tcsrsi mstatus, 8" : : "r"(MIE_MTIE) : "memory");
}

void board_timer_disable(void)
{
    __asm__ volatile("csrci mstatus, 8\n\tcsrc mie, %0" : : "r"(MIE_MTIE) : "memory");
}

/* Called from irq_entry (start.S) for every trap, mstatus.MIE clear. */
void board_irq_handler(uint64_t mcause, uint64_t mepc)
{
    if (mcause != (MCAUSE_INTERRUPT | IRQ_M_TIMER)) {
        const struct board_fault_field f[] = {{"mcause=", mcause}, {"mepc=", mepc}};
        board_fault_exit("trap", f, 2, 16);
    }
    msamp_irq_enter();
    *mmio64(CLINT_MTIMECMP) = *mmio64(CLINT_MTIME) + timer_period;
    if (board_timer_fn != NULL)
        board_timer_fn();
    msamp_irq_exit();
}
