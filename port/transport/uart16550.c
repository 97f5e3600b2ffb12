/* 16550 UART transport (PC COM ports, MIPS Malta, RISC-V virt): msamp's stream on the TX line,
 * commands from the host (docs/CONTROL.md) on the RX line, read by msamp_poll().
 * Registers are MSAMP_16550_STRIDE bytes apart, accessed as bytes; on x86 (MSAMP_16550_PORT_IO=1)
 * MSAMP_16550_BASE is an I/O port. */
#include <stddef.h>
#include <stdint.h>

#include "msamp_port.h"
#include "msamp_uart.h"

#ifndef MSAMP_16550_BASE
#error "define MSAMP_16550_BASE, the UART's base address (or I/O port)"
#endif
#ifndef MSAMP_16550_STRIDE
#define MSAMP_16550_STRIDE 1
#endif
#ifndef MSAMP_16550_PORT_IO
#define MSAMP_16550_PORT_IO 0
#endif

#define REG_THR 0u
#define REG_RBR 0u
#define REG_LSR 5u
#define LSR_DR (1u << 0)
#define LSR_THRE (1u << 5)

#if MSAMP_16550_PORT_IO
static uint8_t rd(unsigned r)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"((uint16_t)(MSAMP_16550_BASE + r)));
    return v;
}

static void wr(unsigned r, uint8_t v)
{
    __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"((uint16_t)(MSAMP_16550_BASE + r)));
}
#else
static volatile uint8_t *reg(unsigned r)
{
    return (volatile uint8_t *)((uintptr_t)(MSAMP_16550_BASE) + (uintptr_t)r * MSAMP_16550_STRIDE);
}

static uint8_t rd(unsigned r)
{
    return *reg(r);
}

static void wr(unsigned r, uint8_t v)
{
    *reg(r) = v;
}
#endif

int msamp_transport_init(void)
{
    return 0; /* the boot code (or QEMU) leaves the line configured */
}

/* Writes wait for the holding register to empty; reads take what the FIFO holds. */
#define THR_PUT(b) wr(REG_THR, b)
MSAMP_UART_TRANSPORT((rd(REG_LSR) & LSR_THRE) == 0, THR_PUT, (rd(REG_LSR) & LSR_DR) != 0, rd(REG_RBR))
