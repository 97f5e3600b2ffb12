/* The RISC-V 64 bare-metal port's own parts: the mstatus.MIE lock and rdtime. From port/common/
 * (port.mk): the frame walk (records in msamp_frame_layout.h), contexts by trap nesting, the
 * build-id. */
#include <stdint.h>

#include "msamp_port.h"
#include "msamp_port_shapes.h"
#include "msamp_riscv64.h"

#define MSTATUS_MIE 0x8u

MSAMP_PORT_LOCK_BIT("csrrci %0, mstatus, 8", "csrsi mstatus, 8", MSTATUS_MIE)

MSAMP_PORT_TIME_COUNTER("rdtime %0")

uint64_t msamp_port_time_hz(void)
{
    return MSAMP_RISCV64_TIME_HZ;
}
