/* qemu-virt-aarch64 board API: GICv2 + virtual timer interrupt, PL011 console, semihosting exit. */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "msamp_irq_contexts.h"
#include "msamp_aarch64.h"
#include "msamp_semihost.h"

void board_irq_handler(void);
_Noreturn void board_fault(uintptr_t kind, uintptr_t esr, uintptr_t elr);
int main(void);

#define UART_BASE 0x09000000u
#define UART_FR_TXFF (1u << 5)
#define GICD_BASE 0x08000000u
#define GICC_BASE 0x08010000u
#define GICD_CTLR 0x000u
#define GICD_ISENABLER0 0x100u
#define GICD_ICENABLER0 0x180u
#define GICD_IPRIORITYR 0x400u
#define GICC_CTLR 0x000u
#define GICC_PMR 0x004u
#define GICC_IAR 0x00cu
#define GICC_EOIR 0x010u
#define VTIMER_PPI 27u
#define SPURIOUS 1023u

static void (*timer_fn)(void);
static uint64_t timer_period;

static volatile uint32_t *mmio32(uintptr_t addr)
{
    return (volatile uint32_t *)addr;
}

static volatile uint8_t *mmio8(uintptr_t addr)
{
    return (volatile uint8_t *)addr;
}

void board_init(void)
{
    __asm__ volatile("msr daifset, #3" : : : "memory");
    *mmio32(GICD_BASE + GICD_CTLR) = 1;
    *mmio32(GICC_BASE + GICC_PMR) = 0xf0;
    *mmio32(GICC_BASE + GICC_CTLR) = 1;
}

void board_console(const char *text)
{
    msamp_semihost_console(text);
}

void board_uart_write(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while ((*mmio32(UART_BASE + 0x18) & UART_FR_TXFF) != 0) {
        }
        *mmio32(UART_BASE) = data[i];
    }
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

uintptr_t board_irq_save(void)
{
    uintptr_t daif;
    __asm__ volatile("mrs %0, daif\n\tmsr daifset, #3" : "=r"(daif) : : "memory");
    return daif;
}

void board_irq_restore(uintptr_t saved)
{
    __asm__ volatile("msr daif, %0" : : "r"(saved) : "memory");
}

uint64_t board_ticks(void)
{
    uint64_t t;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(t) : : "memory");
    return t;
}

uint64_t board_tick_hz(void)
{
    uint64_t hz;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
    return hz;
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
    *mmio8(GICD_BASE + GICD_IPRIORITYR + VTIMER_PPI) = 0xa0;
    *mmio32(GICD_BASE + GICD_ISENABLER0) = 1u << VTIMER_PPI;
    vtimer_arm(timer_period);
    __asm__ volatile("msr daifclr, #2" : : : "memory");
    return 0;
}

void board_timer_stop(void)
{
    __asm__ volatile("msr daifset, #2" : : : "memory");
    __asm__ volatile("msr cntv_ctl_el0, %0\n\tisb" : : "r"((uint64_t)0) : "memory");
    *mmio32(GICD_BASE + GICD_ICENABLER0) = 1u << VTIMER_PPI;
    timer_fn = NULL;
}

/* Called from irq_entry (start.S) with IRQs masked. */
void board_irq_handler(void)
{
    msamp_irq_enter();
    uint32_t iar = *mmio32(GICC_BASE + GICC_IAR);
    uint32_t id = iar & 0x3ffu;
    if (id == VTIMER_PPI) {
        vtimer_arm(timer_period);
        if (timer_fn != NULL)
            timer_fn();
    }
    if (id != SPURIOUS)
        *mmio32(GICC_BASE + GICC_EOIR) = iar;
    msamp_irq_exit();
}
