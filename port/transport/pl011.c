/* PL011 UART transport: msamp's stream on the UART's TX line, one byte per FIFO slot; commands
 * from the host (docs/CONTROL.md) on its RX line, read from the receive FIFO by msamp_poll(). */
#include <stddef.h>
#include <stdint.h>

#include "msamp_port.h"
#include "msamp_uart.h"

#ifndef MSAMP_PL011_BASE
#error "define MSAMP_PL011_BASE, the UART's base address"
#endif
/* When both are set, msamp_transport_init() programs the baud rate (otherwise the boot code or
 * the debugger left the UART configured, as QEMU does). */
#ifndef MSAMP_PL011_CLOCK_HZ
#define MSAMP_PL011_CLOCK_HZ 0
#endif
#ifndef MSAMP_PL011_BAUD
#define MSAMP_PL011_BAUD 0
#endif

#define UART_DR 0x00u
#define UART_FR 0x18u
#define UART_IBRD 0x24u
#define UART_FBRD 0x28u
#define UART_LCRH 0x2cu
#define UART_CR 0x30u
#define FR_RXFE (1u << 4)
#define FR_TXFF (1u << 5)
#define LCRH_WLEN8_FEN (3u << 5 | 1u << 4)
#define CR_UARTEN_TXE_RXE (1u << 0 | 1u << 8 | 1u << 9)

static volatile uint32_t *reg(uintptr_t offset)
{
    return (volatile uint32_t *)((uintptr_t)(MSAMP_PL011_BASE) + offset);
}

int msamp_transport_init(void)
{
#if MSAMP_PL011_CLOCK_HZ > 0 && MSAMP_PL011_BAUD > 0
    /* Divisor in 1/64ths: clock / (16 * baud), rounded. */
    uint32_t div64 = (uint32_t)((4ull * MSAMP_PL011_CLOCK_HZ + MSAMP_PL011_BAUD / 2) / MSAMP_PL011_BAUD);
    *reg(UART_CR) = 0;
    *reg(UART_IBRD) = div64 >> 6;
    *reg(UART_FBRD) = div64 & 63u;
    *reg(UART_LCRH) = LCRH_WLEN8_FEN;
#endif
    *reg(UART_CR) = *reg(UART_CR) | CR_UARTEN_TXE_RXE;
    return 0;
}

/* Writes wait for FIFO room; reads take what the receive FIFO holds (a byte's bits 8..11, its
 * errors, are dropped: the frame's CRC catches them). */
#define DR_PUT(b) (*reg(UART_DR) = (b))
MSAMP_UART_TRANSPORT((*reg(UART_FR) & FR_TXFF) != 0, DR_PUT, (*reg(UART_FR) & FR_RXFE) == 0, *reg(UART_DR))
