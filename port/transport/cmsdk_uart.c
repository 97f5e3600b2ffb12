/* CMSDK APB UART transport (Arm MPS2 boards, many Cortex-M SoCs): msamp's stream on UART TX. */
#include <stddef.h>
#include <stdint.h>

#include "msamp_port.h"
#include "msamp_transport.h"

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
#define CTRL_TX_EN (1u << 0)

static volatile uint32_t *reg(uintptr_t offset)
{
    return (volatile uint32_t *)((uintptr_t)(MSAMP_CMSDK_UART_BASE) + offset);
}

int msamp_transport_init(void)
{
    *reg(UART_BAUDDIV) = MSAMP_CMSDK_UART_BAUDDIV;
    *reg(UART_CTRL) = *reg(UART_CTRL) | CTRL_TX_EN;
    return 0;
}

/* Called only from msamp_poll()/msamp_flush(): waits for room in the TX buffer. */
int msamp_transport_write(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while ((*reg(UART_STATE) & STATE_TX_FULL) != 0) {
        }
        *reg(UART_DATA) = data[i];
    }
    return len > (size_t)INT32_MAX ? INT32_MAX : (int)len;
}

int msamp_transport_flush(void)
{
    return 0;
}

const char *msamp_transport_name(void)
{
    return "uart";
}
