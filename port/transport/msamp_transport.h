/*
 * Transports: where msamp_poll() sends the stream. Each transport is one .c file that implements
 * msamp_transport_write(), msamp_transport_init(), msamp_transport_flush() and
 * msamp_transport_read() (msamp_port.h) and
 * msamp_transport_name() below; a firmware links exactly one. Configuration is by -D at build time (named in each file).
 *
 *   pl011.c        PL011 UART (Arm virt boards, many Cortex-A SoCs). MSAMP_PL011_BASE.
 *   semihosting.c  a file on the debug host through ARM semihosting, written in chunks of
 *                  MSAMP_SEMIHOST_CHUNK bytes. MSAMP_SEMIHOST_PATH (default "msamp.bin").
 *   uart16550.c    16550 UART (PC COM ports, MIPS Malta, RISC-V virt). MSAMP_16550_BASE,
 *                  MSAMP_16550_STRIDE, MSAMP_16550_PORT_IO (x86 I/O ports).
 *   cmsdk_uart.c   Arm CMSDK APB UART (MPS2, many Cortex-M SoCs). MSAMP_CMSDK_UART_BASE.
 *   rtt.c          SEGGER RTT through a debug probe: the control block _SEGGER_RTT, the stream on
 *                  up-channel MSAMP_RTT_CHANNEL (default 1), commands from its down-channel
 *                  (msamp_transport_read). MSAMP_RTT_UP_SIZE, MSAMP_RTT_DOWN_SIZE, MSAMP_RTT_BLOCK
 *                  (docs/RTT.md).
 * semihosting.c runs over the architecture's semihosting helpers (port/semihosting/).
 * Each also implements msamp_transport_read(), the down-channel (docs/CONTROL.md): the UARTs read
 * their RX line, semihosting.c the command file MSAMP_SEMIHOST_CMD_PATH (default "msamp.cmd").
 */
#ifndef MSAMP_TRANSPORT_H
#define MSAMP_TRANSPORT_H

/* msamp_transport_init() and msamp_transport_flush() are declared in msamp_port.h: msamp_init()
 * brings the transport up, msamp_flush() flushes it. */
#include "msamp_port.h"

/* Short name of the transport ("uart", "semihosting"). */
const char *msamp_transport_name(void);

#endif
