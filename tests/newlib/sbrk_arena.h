/* The heap newlib grows with _sbrk: a static arena of NL_ARENA_BYTES, and its end for msamp's heap
 * hook (the newlib tests' firmware, tests/newlib/newlib_fw.c, and tests/postmortem/nano_fw.c).
 * Included once, by the firmware's file. */
#ifndef NL_SBRK_ARENA_H
#define NL_SBRK_ARENA_H

#include <stddef.h>

#include "msamp_newlib.h"

#ifndef NL_ARENA_BYTES
#error "sbrk_arena.h: define NL_ARENA_BYTES"
#endif

void *_sbrk(ptrdiff_t incr);

#ifdef NL_SBRK_FRAGMENT
/* newlib's own layout (libgloss's _sbrk, a vendor's syscalls.c): the heap from the linker's `end`
 * up to the stack pointer, and no msamp_newlib_heap_end(): msamp's newlib hook takes the heap's
 * end from port/msamp.ld's default (tests/newlib/link_fragment.ld). */
extern char end[];
static char *heap_brk;

void *_sbrk(ptrdiff_t incr)
{
    char *sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    if (heap_brk == NULL)
        heap_brk = end;
    if ((incr > 0 && incr > sp - heap_brk) || (incr < 0 && -incr > heap_brk - end))
        return (void *)-1;
    void *p = heap_brk;
    heap_brk += incr;
    return p;
}
#else
static unsigned char arena[NL_ARENA_BYTES] __attribute__((aligned(8)));
static size_t arena_used;

void *_sbrk(ptrdiff_t incr)
{
    if ((incr > 0 && (size_t)incr > sizeof arena - arena_used) ||
        (incr < 0 && (size_t)-incr > arena_used))
        return (void *)-1;
    void *p = arena + arena_used;
    arena_used += (size_t)incr;
    return p;
}

/* The arena's end, for msamp's newlib heap hook (port/newlib/): the room _sbrk has not given yet
 * counts as free. NL_NO_HEAP_END leaves it out (the hook's weak default: the end unknown, the
 * heap's total what _sbrk has given so far; tests/newlib/growth_fw.c). */
#ifndef NL_NO_HEAP_END
void *msamp_newlib_heap_end(void)
{
    return arena + sizeof arena;
}
#endif
#endif

#endif
