/*
 * newlib's allocator under msamp on qemu-mps2-an385 (Cortex-M3), every allocation sampled
 * (interval 1). The firmware links Debian's newlib (libc.a, or libc_nano.a with --specs=nano.specs)
 * and wraps the functions of its build (tests/newlib/fw.make: NL_WRAP_<name>=1 for each one). It makes
 * a fixed sequence of calls: malloc, calloc, realloc (NULL, growing, shrinking, moving, to 0), the
 * _r functions called directly, free and _free_r, each from a site function of its own, and prints
 * one line per call: what it called, from where, with what size, and the addresses it gave and got:
 *   nl-op ENTRY SITE size=N old=0xADDR ret=0xADDR
 * then msamp's counters (nl-stats ...). tests/newlib/check_counts.awk derives from those lines what
 * msamp must have recorded for the wrap set and compares it with the stream.
 *
 * A call whose effect no outside observer can predict is left out: realloc of a block through
 * newlib's realloc unwrapped while _malloc_r or _free_r is wrapped (full newlib may move the block
 * into a free neighbour without calling them, or call them; only the wrappers of realloc or
 * _realloc_r see a realloc as one).
 */
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/reent.h>

#include "board_api.h"
#include "msamp.h"
#include "nl_sbrk.h"

#ifndef NL_WRAP_realloc
#define NL_WRAP_realloc 0
#endif
#ifndef NL_WRAP__realloc_r
#define NL_WRAP__realloc_r 0
#endif
#ifndef NL_WRAP__malloc_r
#define NL_WRAP__malloc_r 0
#endif
#ifndef NL_WRAP__free_r
#define NL_WRAP__free_r 0
#endif

int main(void);

/* A console line built piece by piece (no printf: it would allocate through newlib). */
static char line[160];
static size_t len;

static void put(const char *s)
{
    while (*s != '\0' && len < sizeof line - 2)
        line[len++] = *s++;
}

static void put_u(uint32_t v)
{
    char d[11];
    unsigned n = 0;
    do {
        d[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0);
    while (n > 0 && len < sizeof line - 2)
        line[len++] = d[--n];
}

static void put_hex(uintptr_t v)
{
    char h[11] = "0x";
    board_put_hex(h + 2, v, 8);
    h[10] = '\0';
    put(h);
}

static void emit(void)
{
    line[len++] = '\n';
    line[len] = '\0';
    board_console(line);
    len = 0;
}

/* The heap as newlib tells it (_mallinfo_r: fordblks, the free bytes among those _sbrk gave) with
 * the arena's room _sbrk has not given yet, at each moment msamp reads it too (msamp_init, each
 * msamp_poll, msamp_end): the truth of msamp's HEAP records (port/newlib/msamp_newlib_heap.c),
 * printed at the end as "msamp-demo heap free=F min_free=M largest_free=L" for
 * tests/board/check_heap.sh. min_free: the fewest free at those moments (neither library keeps a
 * low watermark: msamp's is the fewest its polls saw). largest_free: newlib-nano's free list
 * walked here (the largest chunk, or the room if larger); unknown (?) for full newlib. */
#ifdef NL_NANO
struct nl_chunk {
    long size;
    struct nl_chunk *next;
};
extern struct nl_chunk *__malloc_free_list;
#endif
static size_t heap_min = SIZE_MAX;

static size_t heap_free(void)
{
    struct mallinfo mi = _mallinfo_r(_REENT);
    size_t f = mi.fordblks + (sizeof arena - arena_used);
    heap_min = f < heap_min ? f : heap_min;
    return f;
}

static void put_heap(void)
{
    put("msamp-demo heap free=");
    put_u((uint32_t)heap_free());
    put(" min_free=");
    put_u((uint32_t)heap_min);
    put(" largest_free=");
#ifdef NL_NANO
    size_t largest = sizeof arena - arena_used;
    for (const struct nl_chunk *c = __malloc_free_list; c != NULL; c = c->next)
        largest = (size_t)c->size > largest ? (size_t)c->size : largest;
    put_u((uint32_t)largest);
#else
    put("?");
#endif
    emit();
}

/* One line per call; the stream is drained after each (no record waits in the ring). Addresses
 * as numbers, taken before the call that may free them. */
static void op(const char *entry, const char *site, size_t size, uintptr_t old, const void *ret)
{
    put("nl-op ");
    put(entry);
    put(" ");
    put(site);
    put(" size=");
    put_u((uint32_t)size);
    put(" old=");
    put_hex(old);
    put(" ret=");
    put_hex((uintptr_t)ret);
    emit();
    if (msamp_poll() < 0)
        fail("msamp_poll");
    (void)heap_free();
}

/* Whether a realloc of a block through `wrapped` (realloc's or _realloc_r's wrapper present) has
 * an outcome the check can know (see the top of the file). */
static int predictable(int wrapped)
{
    return wrapped || !(NL_WRAP__malloc_r || NL_WRAP__free_r);
}

#define SITE __attribute__((noinline))
/* Each site stores its result after the call (no tail call: the site's frame is on the stack). */
static void *volatile out;

SITE static void site_malloc(size_t n)
{
    out = malloc(n);
    op("malloc", __func__, n, 0, out);
}

SITE static void site_calloc(size_t n, size_t m)
{
    out = calloc(n, m);
    op("calloc", __func__, n * m, 0, out);
}

SITE static void site_realloc(void *old, size_t n)
{
    if (old != NULL && !predictable(NL_WRAP_realloc || NL_WRAP__realloc_r)) {
        out = old;
        return;
    }
    uintptr_t was = (uintptr_t)old;
    out = realloc(old, n);
    op("realloc", __func__, n, was, out);
}

SITE static void site_free(void *p)
{
    uintptr_t was = (uintptr_t)p;
    free(p);
    op("free", __func__, 0, was, NULL);
}

SITE static void site_malloc_r(size_t n)
{
    out = _malloc_r(_REENT, n);
    op("_malloc_r", __func__, n, 0, out);
}

SITE static void site_calloc_r(size_t n, size_t m)
{
    out = _calloc_r(_REENT, n, m);
    op("_calloc_r", __func__, n * m, 0, out);
}

SITE static void site_realloc_r(void *old, size_t n)
{
    if (old != NULL && !predictable(NL_WRAP__realloc_r)) {
        out = old;
        return;
    }
    uintptr_t was = (uintptr_t)old;
    out = _realloc_r(_REENT, old, n);
    op("_realloc_r", __func__, n, was, out);
}

SITE static void site_free_r(void *p)
{
    uintptr_t was = (uintptr_t)p;
    _free_r(_REENT, p);
    op("_free_r", __func__, 0, was, NULL);
}

static void *take(void)
{
    void *p = out;
    out = NULL;
    return p;
}

int main(void)
{
    board_init();
    struct msamp_config cfg = {.interval = 1};
    if (msamp_init(&cfg) != 0)
        fail("msamp_init");
    (void)heap_free();

    /* Two rounds: the second reuses the addresses the first freed. */
    for (int round = 0; round < 2; round++) {
        site_malloc(24);
        void *a = take();
        site_malloc(200);
        void *b = take();
        site_calloc(6, 10);
        void *c = take();
        site_realloc(NULL, 40);
        void *d = take();
        site_realloc(a, 500); /* grows past b: moves */
        a = take();
        site_realloc(b, 100); /* shrinks in place */
        b = take();
        site_malloc(16);
        void *e = take();
        site_realloc(e, 64); /* grows where it cannot: moves */
        e = take();
        site_realloc(d, 0); /* nano frees it (NULL); full newlib keeps a minimum block */
        d = take();
        site_malloc(32);
        void *x = take();
        site_realloc(x, 256); /* full newlib grows the last block into the top: in place */
        x = take();

        site_malloc_r(48);
        void *f = take();
        site_calloc_r(3, 16);
        void *g = take();
        site_realloc_r(NULL, 20);
        void *h = take();
        site_realloc_r(f, 300);
        f = take();
        site_realloc_r(g, 8);
        g = take();
        site_realloc_r(h, 0);
        h = take();

        site_free(a);
        site_free_r(b);
        site_free(c);
        site_free_r(e);
        site_free(d); /* NULL after nano's realloc(d, 0) */
        site_free(f);
        site_free_r(g);
        site_free_r(h);
        site_free(x);
    }
    site_malloc(1000); /* live at the end: the heap's figures then are not its empty state's */
    void *volatile kept = take();
    (void)kept;
    if (msamp_flush() < 0)
        fail("msamp_flush");

    struct msamp_stats st;
    if (msamp_get_stats(&st) != 0)
        fail("msamp_get_stats");
    put("nl-stats samples=");
    put_u(st.samples);
    put(" frees=");
    put_u(st.frees);
    put(" reentrant=");
    put_u(st.reentrant);
    put(" no_frame=");
    put_u(st.no_frame);
    put(" truncated=");
    put_u(st.truncated);
    put(" ring_records=");
    put_u(st.ring_records);
    put(" live_full=");
    put_u(st.live_full);
    put(" stack_full=");
    put_u(st.stack_full);
    put(" failed=");
    put_u(st.failed);
    emit();
    put_heap(); /* the heap msamp_end reads: nothing allocates between */
    if (msamp_end() < 0)
        fail("msamp_end");
    board_console("nl-done\n");
    board_exit(0);
}
