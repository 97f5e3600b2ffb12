/* qemu-mps2-an385 board API: CMSDK TIMER0 interrupt, semihosting console and exit,
 * SysTick as the clock (msamp's). */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "msamp_arm.h"
#include "msamp_port.h"
#include "msamp_semihost.h"

void board_irq_handler(void);
_Noreturn void board_fault(uint32_t exception, uint32_t pc);
int main(void);

#define TIMER0_BASE 0x40000000u
#define TIMER_CTRL 0x00u
#define TIMER_VALUE 0x04u
#define TIMER_RELOAD 0x08u
#define TIMER_INTCLEAR 0x0cu
#define TIMER0_IRQ 8u
#define NVIC_ISER0 0xe000e100u
#define NVIC_ICER0 0xe000e180u

static void (*timer_fn)(void);

static volatile uint32_t *mmio32(uintptr_t addr)
{
    return (volatile uint32_t *)addr;
}

void board_init(void)
{
    __asm__ volatile("cpsid i" : : : "memory");
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

_Noreturn void board_fault(uint32_t exception, uint32_t pc)
{
    char line[] = "board: unexpected exception 0x00000000 pc=0x00000000\n";
    board_put_hex(line + 30, exception, 8);
    board_put_hex(line + 44, pc, 8);
    board_console(line);
    board_exit(99);
}

int board_timer_start(uint32_t period_us, void (*fn)(void))
{
    if (fn == NULL || period_us == 0)
        return -1;
    timer_fn = fn;
    uint64_t reload = (uint64_t)MSAMP_ARM_CPU_HZ * period_us / 1000000u;
    *mmio32(TIMER0_BASE + TIMER_CTRL) = 0;
    *mmio32(TIMER0_BASE + TIMER_RELOAD) = reload > 1 ? (uint32_t)reload : 1u;
    *mmio32(TIMER0_BASE + TIMER_VALUE) = reload > 1 ? (uint32_t)reload : 1u;
    *mmio32(TIMER0_BASE + TIMER_INTCLEAR) = 1;
    *mmio32(TIMER0_BASE + TIMER_CTRL) = 1u | 8u; /* enable, interrupt */
    *mmio32(NVIC_ISER0) = 1u << TIMER0_IRQ;
    __asm__ volatile("cpsie i" : : : "memory");
    return 0;
}

void board_timer_stop(void)
{
    __asm__ volatile("cpsid i" : : : "memory");
    *mmio32(TIMER0_BASE + TIMER_CTRL) = 0;
    *mmio32(NVIC_ICER0) = 1u << TIMER0_IRQ;
    timer_fn = NULL;
}

/* Called from irq_entry (start.S) in handler mode. */
void board_irq_handler(void)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    if ((ipsr & 0x1ffu) == 16u + TIMER0_IRQ) {
        *mmio32(TIMER0_BASE + TIMER_INTCLEAR) = 1;
        if (timer_fn != NULL)
            timer_fn();
        /* No tail call: the handler's frame stays on interrupt stacks. */
        __asm__ volatile("" : : : "memory");
    }
}
