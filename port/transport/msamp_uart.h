/* What the UART transports (pl011.c, uart16550.c, cmsdk_uart.c) share: msamp_transport_write, which
 * waits for room before each byte (called only from msamp_poll()/msamp_flush(), as the contract
 * allows), msamp_transport_read, the down-channel, which takes the bytes received so far up to max
 * and never waits, msamp_transport_flush (nothing held) and msamp_transport_name ("uart").
 * MSAMP_UART_TRANSPORT(TX_FULL, PUT, RX_READY, GET) defines them from the UART's expressions: TX_FULL
 * is nonzero while no byte can be written, PUT(b) writes one, RX_READY is nonzero while one
 * was received, GET reads it.
 *
 * MSAMP_UART_BAUD (default 0: off) paces the stream at a link's rate, baud / 10 bytes a second by
 * msamp_port_time(): a write takes no more bytes than the credit earned since the last one (up
 * to MSAMP_UART_BURST, default 16, the bytes a FIFO holds while nobody feeds it) and returns that
 * count, never waiting for the credit; the core keeps the rest in its ring and adapts to the link
 * (docs/ADAPTIVE.md "The link"). For a link slower than the UART (a radio, a bridge, a console
 * shared with logs) and for tests: QEMU's UARTs are never full, so without it every board test
 * drains an unthrottled link. */
#ifndef MSAMP_UART_H
#define MSAMP_UART_H

#include <stddef.h>
#include <stdint.h>

#include "msamp_pace.h"
#include "msamp_transport.h"

#ifndef MSAMP_UART_BAUD
#define MSAMP_UART_BAUD 0
#endif
#ifndef MSAMP_UART_BURST
#define MSAMP_UART_BURST 16
#endif
#if MSAMP_UART_BAUD
/* The bytes the link takes now, at most len. */
static size_t msamp_uart_paced(size_t len)
{
    static struct msamp_pace pace;
    uint32_t credit = msamp_pace_credit(
        &pace, (uint32_t)msamp_port_time(),
        msamp_pace_ticks_per_byte(msamp_port_time_hz(), (uint32_t)MSAMP_UART_BAUD / 10u),
        MSAMP_UART_BURST);
    if (len > credit)
        len = credit;
    pace.credit -= (uint32_t)len;
    return len;
}
#else
#define msamp_uart_paced(len) (len)
#endif

#define MSAMP_UART_TRANSPORT(TX_FULL, PUT, RX_READY, GET)                                          \
    int msamp_transport_write(const uint8_t *data, size_t len)                                     \
    {                                                                                              \
        len = msamp_uart_paced(len);                                                               \
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
