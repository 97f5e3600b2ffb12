/* CMSDK APB UART transport (Arm MPS2 boards, many Cortex-M SoCs): msamp's stream on UART TX,
 * commands from the host (docs/CONTROL.md) on UART RX, read by msamp_poll(). */
#include <stddef.h>
#include <stdint.h>

#include "msamp_port.h"
#include "msamp_uart.h"

#ifndef MSAMP_CMSDK_UART_BASE
#error "define MSAMP_CMSDK_UART_BASE, the UART's base address"
#endif
/* Baud divisor (clock / baud, at least 16) written by msamp_transport_init(). */
#ifndef MSAMP_CMSDK_UART_BAUDDIV
#define MSAMP_CMSDK_UART_BAUDDIV 16u
#endif

#define UART_DATA 0x00u
#define UART_STATE 0x04u
#define UART_CTRL 0x08u
#define UART_BAUDDIV 0x10u
#define STATE_TX_FULL (1u << 0)
#define STATE_RX_FULL (1u << 1)
#define CTRL_TX_EN (1u << 0)
#define CTRL_RX_EN (1u << 1)

static volatile uint32_t *reg(uintptr_t offset)
{
    return (volatile uint32_t *)((uintptr_t)(MSAMP_CMSDK_UART_BASE) + offset);
}

int msamp_transport_init(void)
{
    *reg(UART_BAUDDIV) = MSAMP_CMSDK_UART_BAUDDIV;
    *reg(UART_CTRL) = *reg(UART_CTRL) | CTRL_TX_EN | CTRL_RX_EN;
    return 0;
}

/* Writes wait for room in the TX buffer. Reads drain the one-byte receive buffer: at the line's
 * speed a byte arrives per ~87 us at 115200 baud, so msamp_poll() must run that often while a
 * command comes in, or bytes are overrun (the frame's CRC then drops the command and the host
 * resends it). */
#define DATA_PUT(b) (*reg(UART_DATA) = (b))
MSAMP_UART_TRANSPORT((*reg(UART_STATE) & STATE_TX_FULL) != 0, DATA_PUT,
                     (*reg(UART_STATE) & STATE_RX_FULL) != 0, *reg(UART_DATA))
