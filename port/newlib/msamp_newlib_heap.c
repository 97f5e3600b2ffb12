/* newlib's and newlib-nano's heap state for msamp (msamp_port_heap_stats, docs/HEALTH.md), one
 * object for both (port/msamp.mk: MSAMP_LIBC_HEAP=newlib).
 *
 * _mallinfo_r, not mallinfo: full newlib's mallinfo sits in one object with malloc_stats, whose
 * printing drags in stdio and the system calls a firmware may lack; _mallinfo_r is an object of
 * its own in both libraries, and needs nothing malloc does not. From it: the bytes taken from
 * _sbrk (arena) and free among them (fordblks); full newlib also counts its free chunks (ordblks).
 * Beyond the break, the room _sbrk may still give (up to msamp_newlib_heap_end(): the firmware's, or
 * by default port/msamp.ld's __msamp_heap_end, the end of RAM less a stack reserve) counts as free,
 * and in the total. Neither library keeps a low watermark: msamp keeps the fewest free
 * bytes its polls saw (MSAMP_HEAP_MIN_SEEN).
 *
 * The largest free block: newlib-nano's free list is one short list (__malloc_free_list, by
 * address), walked here under the allocator's lock as its _mallinfo_r walks it, for its largest
 * chunk and their number; the largest free block is that or the room beyond the break (nano 3.3
 * does not grow a free chunk that ends at the break: a larger request takes fresh room). Full
 * newlib's (dlmalloc) free chunks lie in 128 bins: a walk of them all at every poll, beside the
 * one _mallinfo_r already makes, is not cheap, so its largest free block is unknown. Which library
 * is linked is told at link time: __malloc_free_list is newlib-nano's alone (a weak reference: 0
 * in full newlib).
 *
 * Called outside msamp's lock (from msamp_init, each msamp_poll, and after an allocation failed,
 * once the allocator returned): it takes the allocator's lock, and does not allocate. */
#include <malloc.h>
#include <reent.h>
#include <stddef.h>
#include <stdint.h>

#include "msamp.h"
#include "msamp_newlib.h"
#include "msamp_port.h"

/* newlib-nano's chunk (nano-mallocr.c): its size (header and padding included), then in a free
 * chunk the next free one. */
struct msamp_nano_chunk {
    long size;
    struct msamp_nano_chunk *next;
};
extern struct msamp_nano_chunk *__malloc_free_list __attribute__((weak));

/* port/msamp.ld's heap end (a weak reference: 0 in a link without the fragment). */
extern char __msamp_heap_end[] __attribute__((weak));

/* The firmware's own definition wins; else the fragment's __msamp_heap_end; else unknown. */
__attribute__((weak)) void *msamp_newlib_heap_end(void)
{
    return __msamp_heap_end;
}

#if MSAMP_CFG_HEAP_STATS
void msamp_newlib_heap_stats(struct msamp_heap_stats *out)
{
    struct _reent *r = _REENT;
    struct mallinfo mi = _mallinfo_r(r);
    uintptr_t room = 0, end = (uintptr_t)msamp_newlib_heap_end();
    if (end != 0) {
        uintptr_t brk = (uintptr_t)_sbrk_r(r, 0);
        if (brk != (uintptr_t)-1 && brk <= end)
            room = end - brk;
    }
    out->total = (uintptr_t)mi.arena + room;
    out->free = (uintptr_t)mi.fordblks + room;
    out->valid = MSAMP_HEAP_TOTAL | MSAMP_HEAP_FREE;
    if (&__malloc_free_list == NULL) { /* full newlib: its free chunks, top among them */
        out->free_blocks = mi.ordblks;
        out->valid |= MSAMP_HEAP_FREE_BLOCKS;
        return;
    }
    uintptr_t largest = room, blocks = 0;
    __malloc_lock(r);
    for (const struct msamp_nano_chunk *c = __malloc_free_list; c != NULL && blocks < 1000000u;
         c = c->next) {
        blocks++;
        if (c->size > 0 && (uintptr_t)c->size > largest)
            largest = (uintptr_t)c->size;
    }
    __malloc_unlock(r);
    out->largest_free = largest;
    out->free_blocks = blocks + (room != 0);
    out->valid |= MSAMP_HEAP_LARGEST_FREE | MSAMP_HEAP_FREE_BLOCKS;
}

void msamp_port_heap_stats(struct msamp_heap_stats *out)
{
    msamp_newlib_heap_stats(out);
}
#endif
