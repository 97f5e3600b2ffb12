/* The nRF51's UART as msamp's transport (qemu-microbit): the stream on TXD, commands from the host
 * (docs/CONTROL.md) on RXD, read by msamp_poll(). A byte written to TXD is sent when
 * EVENTS_TXDRDY is set: the next one waits for it (the first does not). No pins are selected: QEMU's
 * model has none; a real board sets PSELTXD/PSELRXD and BAUDRATE before msamp_transport_init(). */
#include <stddef.h>
#include <stdint.h>

#include "msamp_port.h"
#include "msamp_uart.h"

#ifndef MSAMP_NRF51_UART_BASE
#define MSAMP_NRF51_UART_BASE 0x40002000u
#endif

#define TASKS_STARTRX 0x000u
#define TASKS_STARTTX 0x008u
#define EVENTS_RXDRDY 0x108u
#define EVENTS_TXDRDY 0x11cu
#define ENABLE 0x500u
#define RXD 0x518u
#define TXD 0x51cu
#define ENABLE_UART 4u

static volatile uint32_t *reg(uintptr_t offset)
{
    return (volatile uint32_t *)((uintptr_t)(MSAMP_NRF51_UART_BASE) + offset);
}

/* 1 while a byte written to TXD may not have been sent yet. */
static uint8_t tx_pending;

int msamp_transport_init(void)
{
    *reg(ENABLE) = ENABLE_UART;
    *reg(EVENTS_TXDRDY) = 0;
    *reg(EVENTS_RXDRDY) = 0;
    *reg(TASKS_STARTTX) = 1;
    *reg(TASKS_STARTRX) = 1;
    tx_pending = 0;
    return 0;
}

static void tx_put(uint8_t b)
{
    *reg(EVENTS_TXDRDY) = 0;
    *reg(TXD) = b;
    tx_pending = 1;
}

static uint8_t rx_get(void)
{
    *reg(EVENTS_RXDRDY) = 0;
    return (uint8_t)*reg(RXD);
}

MSAMP_UART_TRANSPORT(tx_pending != 0 && *reg(EVENTS_TXDRDY) == 0, tx_put, *reg(EVENTS_RXDRDY) != 0, rx_get())
