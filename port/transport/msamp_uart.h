/* What the UART transports (pl011.c, uart16550.c, cmsdk_uart.c) share: msamp_transport_write, which
 * waits for room before each byte (called only from msamp_poll()/msamp_flush(), as the contract
 * allows), msamp_transport_read, the down-channel, which takes the bytes received so far up to max
 * and never waits, msamp_transport_flush (nothing held) and msamp_transport_name ("uart").
 * MSAMP_UART_TRANSPORT(TX_FULL, PUT, RX_READY, GET) defines them from the UART's expressions: TX_FULL
 * is nonzero while no byte can be written, PUT(b) writes one, RX_READY is nonzero while one
 * was received, GET reads it. */
#ifndef MSAMP_UART_H
#define MSAMP_UART_H

#include <stddef.h>
#include <stdint.h>

#include "msamp_transport.h"

#define MSAMP_UART_TRANSPORT(TX_FULL, PUT, RX_READY, GET)                                          \
    int msamp_transport_write(const uint8_t *data, size_t len)                                     \
    {                                                                                              \
        for (size_t i = 0; i < len; i++) {                                                         \
            while (TX_FULL) {                                                                      \
            }                                                                                      \
            PUT(data[i]);                                                                          \
        }                                                                                          \
        return len > (size_t)INT32_MAX ? INT32_MAX : (int)len;                                     \
    }                                                                                              \
    int msamp_transport_read(uint8_t *buf, size_t max)                                             \
    {                                                                                              \
        size_t n = 0;                                                                              \
        while (n < max && (RX_READY))                                                              \
            buf[n++] = (uint8_t)(GET);                                                             \
        return (int)n;                                                                             \
    }                                                                                              \
    int msamp_transport_flush(void)                                                                \
    {                                                                                              \
        return 0;                                                                                  \
    }                                                                                              \
    const char *msamp_transport_name(void)                                                         \
    {                                                                                              \
        return "uart";                                                                             \
    }

#endif
