/* The AArch64 bare-metal port's own parts: the DAIF lock and the generic timer. From
 * port/common/ (port.mk): the frame walk (records in msamp_frame_layout.h), contexts by IRQ
 * nesting, the build-id. See port/aarch64/README.md. */
#include <stdint.h>

#include "msamp_port.h"
#include "msamp_port_shapes.h"

MSAMP_PORT_LOCK_SAVED(uintptr_t, "mrs %0, daif\n\tmsr daifset, #3", "msr daif, %0")

MSAMP_PORT_TIME_COUNTER("isb\n\tmrs %0, cntvct_el0")
MSAMP_PORT_TIME_HZ_REGISTER(uint64_t, "mrs %0, cntfrq_el0")
