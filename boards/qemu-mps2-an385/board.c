/* qemu-mps2-an385 board API: CMSDK TIMER0 interrupt, SysTick as the clock (msamp's); the
 * semihosting console and exit are boards/common/'s. */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "common/board_common.h"
#include "msamp_arm.h"
#include "msamp_port.h"

void board_irq_handler(void);
_Noreturn void board_fault(uint32_t exception, uint32_t pc);
int main(void);

/* AN385's TIMER0 and its interrupt (AN386 has the same; qemu-mps2-an505's board.mk sets its own). */
#ifndef BOARD_TIMER0_BASE
#define BOARD_TIMER0_BASE 0x40000000u
#endif
#ifndef BOARD_TIMER0_IRQ
#define BOARD_TIMER0_IRQ 8u
#endif
#define TIMER0_BASE BOARD_TIMER0_BASE
#define TIMER_CTRL 0x00u
#define TIMER_VALUE 0x04u
#define TIMER_RELOAD 0x08u
#define TIMER_INTCLEAR 0x0cu
#define TIMER0_IRQ BOARD_TIMER0_IRQ
#define NVIC_ISER0 0xe000e100u
#define NVIC_ICER0 0xe000e180u


static volatile uint32_t *mmio32(uintptr_t addr)
{
    return (volatile uint32_t *)addr;
}

void board_init(void)
{
    __asm__ volatile("cpsid i" : : : "memory");
}

_Noreturn void board_fault(uint32_t exception, uint32_t pc)
{
    const struct board_fault_field f[] = {{"", exception}, {"pc=", pc}};
    board_fault_exit("exception", f, 2, 8);
}

void board_timer_enable(uint32_t period_us)
{
    uint64_t reload = (uint64_t)MSAMP_ARM_CPU_HZ * period_us / 1000000u;
    *mmio32(TIMER0_BASE + TIMER_CTRL) = 0;
    *mmio32(TIMER0_BASE + TIMER_RELOAD) = reload > 1 ? (uint32_t)reload : 1u;
    *mmio32(TIMER0_BASE + TIMER_VALUE) = reload > 1 ? (uint32_t)reload : 1u;
    *mmio32(TIMER0_BASE + TIMER_INTCLEAR) = 1;
    *mmio32(TIMER0_BASE + TIMER_CTRL) = 1u | 8u; /* enable, interrupt */
    *mmio32(NVIC_ISER0) = 1u << TIMER0_IRQ;
    __asm__ volatile("cpsie i" : : : "memory");
}

void board_timer_disable(void)
{
    __asm__ volatile("cpsid i" : : : "memory");
    *mmio32(TIMER0_BASE + TIMER_CTRL) = 0;
    *mmio32(NVIC_ICER0) = 1u << TIMER0_IRQ;
}

/* Called from irq_entry (start.S) in handler mode. */
void board_irq_handler(void)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    if ((ipsr & 0x1ffu) == 16u + TIMER0_IRQ) {
        *mmio32(TIMER0_BASE + TIMER_INTCLEAR) = 1;
        if (board_timer_fn != NULL)
            board_timer_fn();
        /* No tail call: the handler's frame stays on interrupt stacks. */
        __asm__ volatile("" : : : "memory");
    }
}
