/* 16550 UART transport (PC COM ports, MIPS Malta, RISC-V virt): msamp's stream on the TX line,
 * commands from the host (docs/CONTROL.md) on the RX line, read by msamp_poll().
 * Registers are MSAMP_16550_STRIDE bytes apart, accessed as bytes; on x86 (MSAMP_16550_PORT_IO=1)
 * MSAMP_16550_BASE is an I/O port. */
#include <stddef.h>
#include <stdint.h>

#include "msamp_port.h"
#include "msamp_transport.h"

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

/* Called only from msamp_poll()/msamp_flush(): waits for the holding register to empty. */
int msamp_transport_write(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while ((rd(REG_LSR) & LSR_THRE) == 0) {
        }
        wr(REG_THR, data[i]);
    }
    return len > (size_t)INT32_MAX ? INT32_MAX : (int)len;
}

/* The down-channel: the bytes received so far (the FIFO), up to max; never waits. */
int msamp_transport_read(uint8_t *buf, size_t max)
{
    size_t n = 0;
    while (n < max && (rd(REG_LSR) & LSR_DR) != 0)
        buf[n++] = rd(REG_RBR);
    return (int)n;
}

int msamp_transport_flush(void)
{
    return 0;
}

const char *msamp_transport_name(void)
{
    return "uart";
}
