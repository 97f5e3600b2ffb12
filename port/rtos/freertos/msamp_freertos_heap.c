/* FreeRTOS's heap (pvPortMalloc/vPortFree of portable/MemMang/heap_N.c) through msamp: link with
 * -Wl,--wrap=pvPortMalloc,--wrap=vPortFree (port/msamp.mk's MSAMP_RTOS=freertos adds them). The
 * kernel's own allocations (task stacks and control blocks, queues, timers) are profiled too:
 * under the task that created them.
 *
 * The heap's own state for msamp (msamp_port_heap_stats, docs/HEALTH.md): heap_4 and heap_5 keep
 * it (vPortGetHeapStats: free bytes, the fewest ever, the largest and the number of free blocks);
 * a firmware on heap_1, heap_2 or heap_3 builds with -DMSAMP_FREERTOS_HEAP_STATS=0. The total is
 * configTOTAL_HEAP_SIZE (heap_4's array; heap_5's regions are the firmware's to say). */
#include <stddef.h>

#include "msamp.h"
#include "msamp_port.h"

MSAMP_WRAP_ALLOCATOR(pvPortMalloc, vPortFree)

#ifndef MSAMP_FREERTOS_HEAP_STATS
#define MSAMP_FREERTOS_HEAP_STATS 1
#endif
#if MSAMP_CFG_HEAP_STATS && MSAMP_FREERTOS_HEAP_STATS
#include "FreeRTOS.h"

void msamp_port_heap_stats(struct msamp_heap_stats *out)
{
    HeapStats_t h;
    vPortGetHeapStats(&h);
#ifdef configTOTAL_HEAP_SIZE
    out->total = configTOTAL_HEAP_SIZE;
    out->valid = MSAMP_HEAP_TOTAL;
#endif
    if (h.xAvailableHeapSpaceInBytes == 0 && h.xNumberOfSuccessfulAllocations == 0)
        return; /* before the heap's first allocation it has no free list yet: nothing known */
    out->free = h.xAvailableHeapSpaceInBytes;
    out->min_free = h.xMinimumEverFreeBytesRemaining;
    out->largest_free = h.xSizeOfLargestFreeBlockInBytes;
    out->free_blocks = h.xNumberOfFreeBlocks;
    out->valid |= MSAMP_HEAP_FREE | MSAMP_HEAP_MIN_FREE | MSAMP_HEAP_LARGEST_FREE |
                  MSAMP_HEAP_FREE_BLOCKS;
}
#endif
