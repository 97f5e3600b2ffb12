/* qemu-virt-arm board API: GICv2 + virtual timer interrupt, PL011 UART, semihosting console and
 * exit. */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "msamp_arm.h"
#include "msamp_port.h"
#include "msamp_semihost.h"

void board_irq_handler(void);
_Noreturn void board_fault(uint32_t cpsr, uint32_t lr);
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
static uint32_t timer_period;

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
    __asm__ volatile("cpsid if" : : : "memory");
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

_Noreturn void board_fault(uint32_t cpsr, uint32_t lr)
{
    char line[] = "board: unexpected exception cpsr=0x00000000 lr=0x00000000\n";
    board_put_hex(line + 35, cpsr, 8);
    board_put_hex(line + 49, lr, 8);
    board_console(line);
    board_exit(99);
}

uintptr_t board_irq_save(void)
{
    return msamp_port_lock();
}

void board_irq_restore(uintptr_t saved)
{
    msamp_port_unlock(saved);
}

uint64_t board_ticks(void)
{
    return msamp_port_time();
}

uint64_t board_tick_hz(void)
{
    return msamp_port_time_hz();
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
    *mmio8(GICD_BASE + GICD_IPRIORITYR + VTIMER_PPI) = 0xa0;
    *mmio32(GICD_BASE + GICD_ISENABLER0) = 1u << VTIMER_PPI;
    vtimer_arm(timer_period);
    __asm__ volatile("cpsie i" : : : "memory");
    return 0;
}

void board_timer_stop(void)
{
    __asm__ volatile("cpsid i" : : : "memory");
    __asm__ volatile("mcr p15, 0, %0, c14, c3, 1\n\tisb" : : "r"(0u) : "memory");
    *mmio32(GICD_BASE + GICD_ICENABLER0) = 1u << VTIMER_PPI;
    timer_fn = NULL;
}

/* Called from irq_entry (start.S) in IRQ mode, IRQs masked. */
void board_irq_handler(void)
{
    uint32_t iar = *mmio32(GICC_BASE + GICC_IAR);
    uint32_t id = iar & 0x3ffu;
    if (id == VTIMER_PPI) {
        vtimer_arm(timer_period);
        if (timer_fn != NULL)
            timer_fn();
    }
    if (id != SPURIOUS)
        *mmio32(GICC_BASE + GICC_EOIR) = iar;
}
