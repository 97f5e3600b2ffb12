/* qemu-virt-riscv32 board API: CLINT machine timer interrupt (its 64-bit registers in 32-bit
 * halves); the semihosting console and exit are boards/common/'s. */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "common/board_common.h"
#include "msamp_irq_contexts.h"
#include "msamp_port.h"
#include "msamp_riscv32.h"

void board_irq_handler(uint32_t mcause, uint32_t mepc);
int main(void);

#define CLINT_MTIMECMP 0x2004000u
#define MIE_MTIE (1u << 7)
#define MCAUSE_INTERRUPT (1u << 31)
#define IRQ_M_TIMER 7u

static uint64_t timer_period;

static volatile uint32_t *mmio32(uintptr_t addr)
{
    return (volatile uint32_t *)addr;
}

/* mtimecmp = t, never passing through a smaller value on the way (the high half first at its
 * largest). */
static void mtimecmp_set(uint64_t t)
{
    *mmio32(CLINT_MTIMECMP + 4u) = 0xffffffffu;
    *mmio32(CLINT_MTIMECMP) = (uint32_t)t;
    *mmio32(CLINT_MTIMECMP + 4u) = (uint32_t)(t >> 32);
}

void board_init(void)
{
    __asm__ volatile("csrci mstatus, 8" : : : "memory");
}

void board_timer_enable(uint32_t period_us)
{
    timer_period = (uint64_t)MSAMP_RISCV32_TIME_HZ * period_us / 1000000u;
    if (timer_period == 0)
        timer_period = 1;
    mtimecmp_set(msamp_port_time() + timer_period);
    __asm__ volatile("csrs mie, %0\n\tcsrsi mstatus, 8" : : "r"(MIE_MTIE) : "memory");
}

void board_timer_disable(void)
{
    __asm__ volatile("csrci mstatus, 8\n\tcsrc mie, %0" : : "r"(MIE_MTIE) : "memory");
}

/* Called from irq_entry (start.S) for every trap, mstatus.MIE clear. */
void board_irq_handler(uint32_t mcause, uint32_t mepc)
{
    if (mcause != (MCAUSE_INTERRUPT | IRQ_M_TIMER)) {
        const struct board_fault_field f[] = {{"mcause=", mcause}, {"mepc=", mepc}};
        board_fault_exit("trap", f, 2, 8);
    }
    msamp_irq_enter();
    mtimecmp_set(msamp_port_time() + timer_period);
    if (board_timer_fn != NULL)
        board_timer_fn();
    msamp_irq_exit();
}
