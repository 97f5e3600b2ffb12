/* FreeRTOS's heap (pvPortMalloc/vPortFree of portable/MemMang/heap_N.c) through msamp: link with
 * -Wl,--wrap=pvPortMalloc,--wrap=vPortFree (port/msamp.mk's MSAMP_RTOS=freertos adds them). The
 * kernel's own allocations (task stacks and control blocks, queues, timers) are profiled too:
 * under the task that created them. */
#include <stddef.h>

#include "msamp.h"

MSAMP_WRAP_ALLOCATOR(pvPortMalloc, vPortFree)
