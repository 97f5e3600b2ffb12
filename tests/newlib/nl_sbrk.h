/* What the newlib test firmwares (newlib_fw.c, newlib_indirect.c) share, included once by each:
 * the heap newlib grows with _sbrk (a static arena) and the failure line. */
#ifndef NL_SBRK_H
#define NL_SBRK_H

#include <stddef.h>

#include "board_api.h"

#ifndef NL_ARENA_BYTES
#define NL_ARENA_BYTES (48 * 1024)
#endif
#include "sbrk_arena.h"

static void fail(const char *why)
{
    board_console("nl-fail ");
    board_console(why);
    board_console("\n");
    board_exit(1);
}

#endif
