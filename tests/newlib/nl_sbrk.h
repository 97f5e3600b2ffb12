/* What the newlib test firmwares (newlib_fw.c, newlib_indirect.c) share, included once by each:
 * the heap newlib grows with _sbrk (a static arena) and the failure line. */
#ifndef NL_SBRK_H
#define NL_SBRK_H

#include <stddef.h>

#include "board_api.h"

void *_sbrk(ptrdiff_t incr);

static unsigned char arena[48 * 1024] __attribute__((aligned(8)));
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

static void fail(const char *why)
{
    board_console("nl-fail ");
    board_console(why);
    board_console("\n");
    board_exit(1);
}

#endif
