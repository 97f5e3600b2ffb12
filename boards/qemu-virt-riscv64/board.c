/* qemu-virt-riscv64 board API: CLINT machine timer interrupt, semihosting console and exit. */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "msamp_irq_contexts.h"
#include "msamp_port.h"
#include "msamp_riscv64.h"
#include "msamp_semihost.h"

void board_irq_handler(uint64_t mcause, uint64_t mepc);
int main(void);

#define CLINT_MTIMECMP 0x2004000u
#define CLINT_MTIME 0x200bff8u
#define MIE_MTIE (1u << 7)
#define MCAUSE_INTERRUPT (1ull << 63)
#define IRQ_M_TIMER 7u

static void (*timer_fn)(void);
static uint64_t timer_period;

static volatile uint64_t *mmio64(uintptr_t addr)
{
    return (volatile uint64_t *)addr;
}

void board_init(void)
{
    __asm__ volatile("csrci mstatus, 8" : : : "memory");
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

static _Noreturn void fault(uint64_t mcause, uint64_t mepc)
{
    char line[] = "board: unexpected trap mcause=0x0000000000000000 mepc=0x0000000000000000\n";
    board_put_hex(line + 32, mcause, 16);
    board_put_hex(line + 56, mepc, 16);
    board_console(line);
    board_exit(99);
}

int board_timer_start(uint32_t period_us, void (*fn)(void))
{
    if (fn == NULL || period_us == 0)
        return -1;
    timer_fn = fn;
    timer_period = (uint64_t)MSAMP_RISCV64_TIME_HZ * period_us / 1000000u;
    if (timer_period == 0)
        timer_period = 1;
    *mmio64(CLINT_MTIMECMP) = *mmio64(CLINT_MTIME) + timer_period;
    __asm__ volatile("csrs mie, %0\n\tcsrsi mstatus, 8" : : "r"(MIE_MTIE) : "memory");
    return 0;
}

void board_timer_stop(void)
{
    __asm__ volatile("csrci mstatus, 8\n\tcsrc mie, %0" : : "r"(MIE_MTIE) : "memory");
    timer_fn = NULL;
}

/* Called from irq_entry (start.S) for every trap, mstatus.MIE clear. */
void board_irq_handler(uint64_t mcause, uint64_t mepc)
{
    if (mcause != (MCAUSE_INTERRUPT | IRQ_M_TIMER))
        fault(mcause, mepc);
    msamp_irq_enter();
    *mmio64(CLINT_MTIMECMP) = *mmio64(CLINT_MTIME) + timer_period;
    if (timer_fn != NULL)
        timer_fn();
    msamp_irq_exit();
}
