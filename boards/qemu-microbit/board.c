/* qemu-microbit board API (nRF51822, Cortex-M0): TIMER0 compare interrupt, SysTick as the clock
 * (msamp's); the semihosting console and exit are boards/common/'s. */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "common/board_common.h"
#include "msamp_port.h"

void board_irq_handler(void);
_Noreturn void board_fault(uint32_t exception, uint32_t pc);
int main(void);

#define TIMER0_BASE 0x40008000u
#define TASKS_START 0x000u
#define TASKS_STOP 0x004u
#define TASKS_CLEAR 0x00cu
#define EVENTS_COMPARE0 0x140u
#define SHORTS 0x200u
#define INTENSET 0x304u
#define INTENCLR 0x308u
#define MODE 0x504u
#define BITMODE 0x508u
#define PRESCALER 0x510u
#define CC0 0x540u
#define SHORTS_COMPARE0_CLEAR 1u
#define INT_COMPARE0 (1u << 16)
#define TIMER0_IRQ 8u
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

/* TIMER0 at 1 MHz (16 MHz / 2^4), 32 bits, cleared at each compare. */
void board_timer_enable(uint32_t period_us)
{
    *mmio32(TIMER0_BASE + TASKS_STOP) = 1;
    *mmio32(TIMER0_BASE + TASKS_CLEAR) = 1;
    *mmio32(TIMER0_BASE + MODE) = 0;
    *mmio32(TIMER0_BASE + BITMODE) = 3;
    *mmio32(TIMER0_BASE + PRESCALER) = 4;
    *mmio32(TIMER0_BASE + CC0) = period_us > 1 ? period_us : 1u;
    *mmio32(TIMER0_BASE + EVENTS_COMPARE0) = 0;
    *mmio32(TIMER0_BASE + SHORTS) = SHORTS_COMPARE0_CLEAR;
    *mmio32(TIMER0_BASE + INTENSET) = INT_COMPARE0;
    *mmio32(NVIC_ISER0) = 1u << TIMER0_IRQ;
    *mmio32(TIMER0_BASE + TASKS_START) = 1;
    __asm__ volatile("cpsie i" : : : "memory");
}

void board_timer_disable(void)
{
    __asm__ volatile("cpsid i" : : : "memory");
    *mmio32(TIMER0_BASE + TASKS_STOP) = 1;
    *mmio32(TIMER0_BASE + INTENCLR) = INT_COMPARE0;
    *mmio32(NVIC_ICER0) = 1u << TIMER0_IRQ;
}

/* Called from irq_entry (boards/qemu-mps2-an385/start.S) in handler mode. */
void board_irq_handler(void)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    if ((ipsr & 0x3fu) == 16u + TIMER0_IRQ && *mmio32(TIMER0_BASE + EVENTS_COMPARE0) != 0) {
        *mmio32(TIMER0_BASE + EVENTS_COMPARE0) = 0;
        if (board_timer_fn != NULL)
            board_timer_fn();
        /* No tail call: the handler's frame stays on interrupt stacks. */
        __asm__ volatile("" : : : "memory");
    }
}
