/* The AArch64 bare-metal port's own parts: the DAIF lock and the generic timer. From
 * port/common/ (port.mk): the frame walk (records in msamp_frame_layout.h), contexts by IRQ
 * nesting, the build-id. See port/aarch64/README.md. */
#include <stdint.h>

#include "msamp_port.h"

msamp_port_lock_t msamp_port_lock(void)
{
    uintptr_t daif;
    __asm__ volatile("mrs %0, daif\n\tmsr daifset, #3" : "=r"(daif) : : "memory");
    return daif;
}

void msamp_port_unlock(msamp_port_lock_t token)
{
    __asm__ volatile("msr daif, %0" : : "r"(token) : "memory");
}

uint64_t msamp_port_time(void)
{
    uint64_t t;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(t) : : "memory");
    return t;
}

uint64_t msamp_port_time_hz(void)
{
    uint64_t hz;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
    return hz != 0 ? hz : 1;
}
