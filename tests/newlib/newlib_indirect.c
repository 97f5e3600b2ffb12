/*
 * newlib's _r functions reached only through newlib itself (test newlib-cmake-indirect): the
 * firmware wraps _malloc_r, _free_r, _calloc_r and _realloc_r (the usual STM32Cube set-up) but
 * calls only malloc, calloc, realloc, free and strdup, newlib's own, which call the _r functions
 * from inside libc.a. msamp's wrappers are then referenced first by a library linked after
 * libmsamp.a: the link works only when msamp.cmake names each with -u. At interval 1 every
 * allocation is recorded; the firmware prints what it made (nl-made allocs=N frees=N bytes=N)
 * and msamp's counters (nl-stats ...), tests/newlib/cmake.sh compares them with the stream.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "board_api.h"
#include "msamp.h"
#include "nl_sbrk.h"

int main(void);

static void put_u(const char *name, uint32_t v)
{
    char d[16];
    unsigned n = 0;
    board_console(name);
    do {
        d[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0);
    char s[16];
    unsigned k = 0;
    while (n > 0)
        s[k++] = d[--n];
    s[k] = '\0';
    board_console(s);
}

static unsigned allocs, frees;

static void *made(void *p)
{
    if (p == NULL)
        fail("out of heap");
    allocs++;
    return p;
}

int main(void)
{
    board_init();
    struct msamp_config cfg = {.interval = 1};
    if (msamp_init(&cfg) != 0)
        fail("msamp_init");
    static const char text[] = "a string newlib copies with malloc";
    for (int round = 0; round < 4; round++) {
        char *a = made(malloc(100));
        char *b = made(strdup(text));
        char *c = made(calloc(8, 12));
        char *d = made(realloc(NULL, 64)); /* a new block */
        a[0] = b[0];
        c[0] = d[0] = 1;
        free(a);
        free(b);
        free(c);
        free(d);
        frees += 4;
        if (msamp_poll() < 0)
            fail("msamp_poll");
    }
    if (msamp_flush() < 0)
        fail("msamp_flush");
    struct msamp_stats st;
    if (msamp_get_stats(&st) != 0)
        fail("msamp_get_stats");
    put_u("nl-made allocs=", allocs);
    put_u(" frees=", frees);
    put_u(" samples=", (uint32_t)st.samples);
    put_u(" msamp_frees=", (uint32_t)st.frees);
    put_u(" reentrant=", (uint32_t)st.reentrant);
    board_console("\nnl-done\n");
    board_exit(0);
}
