/* The x86-64 bare-metal port's own parts: the RFLAGS.IF lock and the TSC. From port/common/
 * (port.mk): the frame walk (records in msamp_frame_layout.h), contexts by interrupt nesting, the
 * build-id. */
#include <stdint.h>

#include "msamp_port.h"
#include "msamp_port_shapes.h"
#include "msamp_x86_64.h"

#define RFLAGS_IF 0x200u

MSAMP_PORT_LOCK_BIT("pushfq\n\tpopq %0\n\tcli", "sti", RFLAGS_IF)

uint64_t msamp_port_time(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return (uint64_t)hi << 32 | lo;
}

static uint64_t tsc_hz = MSAMP_X86_64_TSC_HZ;

void msamp_x86_64_set_tsc_hz(uint64_t hz)
{
    if (hz != 0)
        tsc_hz = hz;
}

uint64_t msamp_port_time_hz(void)
{
    return tsc_hz;
}
