/* The RISC-V 64 bare-metal port's own parts: the mstatus.MIE lock and rdtime. From port/common/
 * (port.mk): the frame walk (records in msamp_frame_layout.h), contexts by trap nesting, the
 * build-id. */
#include <stdint.h>

#include "msamp_port.h"
#include "msamp_riscv64.h"

#define MSTATUS_MIE 0x8u

msamp_port_lock_t msamp_port_lock(void)
{
    uintptr_t old;
    __asm__ volatile("csrrci %0, mstatus, 8" : "=r"(old) : : "memory");
    return old & MSTATUS_MIE;
}

void msamp_port_unlock(msamp_port_lock_t token)
{
    if ((token & MSTATUS_MIE) != 0)
        __asm__ volatile("csrsi mstatus, 8" : : : "memory");
}

uint64_t msamp_port_time(void)
{
    uint64_t t;
    __asm__ volatile("rdtime %0" : "=r"(t) : : "memory");
    return t;
}

uint64_t msamp_port_time_hz(void)
{
    return MSAMP_RISCV64_TIME_HZ;
}
