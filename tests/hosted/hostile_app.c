/*
 * Hostile use of the allocator API under msamp (tests/hosted/hostile.sh): double frees, frees and
 * reallocs of pointers the allocator never returned (a stack address, the middle of a block, an
 * mmap'ed page), realloc of a freed block, realloc(p, 0), huge sizes, calloc overflow, bad
 * alignments, malloc(0), and a seeded random mix of all of them with ordinary calls.
 *
 * The allocator is tests/hosted/hostile_shim.c, which tolerates all this and records what it
 * receives. For every call the program checks that the allocator got exactly one call, with the
 * program's own arguments, and that the program got back exactly the allocator's result and errno
 * (errno is set to 1234 before each call). At the end it checks msamp's live table (the
 * msamp_heapdump block) against the allocator's live blocks: every entry is a live block of the
 * program's with the recorded size, no address twice, msamp_get_stats' count equal; at interval 1
 * every live block of a non-zero size is there. Prints "live_bytes N" (the program's live blocks,
 * left allocated for the exit flush: at interval 1, drain's in-use bytes) and exits 1 on any
 * failure.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hostile_shim.h"
#include "msamp.h"
#include "msamp_heapdump.h"

/* Every call below is deliberate misuse. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"
#if __GNUC__ >= 12
#pragma GCC diagnostic ignored "-Wuse-after-free"
#endif
#pragma GCC diagnostic ignored "-Walloc-size-larger-than="
#endif

static int failures;
static unsigned long calls;

/* Opaque to the optimizer: nothing below is folded, and no pointer is known to be foreign. */
static void *(*volatile launder)(void *);
static void *launder_fn(void *p)
{
    return p;
}
#define L(p) launder((void *)(p))

static const char *fn_name(enum shim_fn f)
{
    static const char *n[] = {"?", "malloc", "free", "calloc", "realloc", "posix_memalign",
                              "aligned_alloc", "memalign"};
    return (unsigned)f < sizeof n / sizeof n[0] ? n[f] : "?";
}

static void begin(void)
{
    shim_log_count = 0;
    shim_recording = 1;
    errno = 1234;
}

/* The allocator received exactly one call: fn(a0, a1, a2), returning ret (and out) with errno err,
 * which is what the program saw. */
static void expect(const char *what, enum shim_fn fn, uintptr_t a0, uintptr_t a1, uintptr_t a2,
                   uintptr_t ret, uintptr_t out, int err)
{
    const struct shim_call *c = &shim_log[0];
    int nargs = fn == SHIM_MALLOC || fn == SHIM_FREE ? 1 : fn == SHIM_POSIX_MEMALIGN ? 3 : 2;

    shim_recording = 0;
    calls++;
    if (shim_log_count != 1) {
        printf("FAIL %s: the allocator received %u calls, expected one %s\n", what, shim_log_count,
               fn_name(fn));
        failures++;
        return;
    }
    int bad = c->fn != fn || c->arg[0] != a0 || (nargs > 1 && c->arg[1] != a1) ||
              (nargs > 2 && c->arg[2] != a2);
    if (bad) {
        printf("FAIL %s: the allocator received %s(%#lx, %#lx, %#lx), the program called "
               "%s(%#lx, %#lx, %#lx)\n",
               what, fn_name(c->fn), (unsigned long)c->arg[0], (unsigned long)c->arg[1],
               (unsigned long)c->arg[2], fn_name(fn), (unsigned long)a0, (unsigned long)a1,
               (unsigned long)a2);
        failures++;
    }
    if (c->ret != ret || c->out != out || c->err != err) {
        printf("FAIL %s: the allocator returned %#lx (out %#lx, errno %d), the program got %#lx "
               "(out %#lx, errno %d)\n",
               what, (unsigned long)c->ret, (unsigned long)c->out, c->err, (unsigned long)ret,
               (unsigned long)out, err);
        failures++;
    }
}

static void *t_malloc(const char *what, size_t n)
{
    begin();
    void *p = malloc(n);
    int e = errno;
    expect(what, SHIM_MALLOC, n, 0, 0, (uintptr_t)p, 0, e);
    return p;
}

static void t_free(const char *what, void *p)
{
    begin();
    free(p);
    int e = errno;
    expect(what, SHIM_FREE, (uintptr_t)p, 0, 0, 0, 0, e);
}

static void *t_calloc(const char *what, size_t n, size_t s)
{
    begin();
    void *p = calloc(n, s);
    int e = errno;
    expect(what, SHIM_CALLOC, n, s, 0, (uintptr_t)p, 0, e);
    return p;
}

static void *t_realloc(const char *what, void *old, size_t n)
{
    begin();
    void *p = realloc(old, n);
    int e = errno;
    expect(what, SHIM_REALLOC, (uintptr_t)old, n, 0, (uintptr_t)p, 0, e);
    return p;
}

static void *t_posix_memalign(const char *what, size_t align, size_t n)
{
    void *out = &failures; /* untouched on failure */
    begin();
    int rc = posix_memalign(&out, align, n);
    int e = errno;
    /* The shim records the out pointer's address it was given: the wrapper passes it on. */
    expect(what, SHIM_POSIX_MEMALIGN, (uintptr_t)&out, align, n, (uintptr_t)rc,
           rc == 0 ? (uintptr_t)out : 0, e);
    if (rc != 0 && out != &failures) {
        printf("FAIL %s: a failed posix_memalign changed its out pointer\n", what);
        failures++;
    }
    return rc == 0 ? out : NULL;
}

static void *t_aligned_alloc(const char *what, size_t align, size_t n)
{
    begin();
    void *p = aligned_alloc(align, n);
    int e = errno;
    expect(what, SHIM_ALIGNED_ALLOC, align, n, 0, (uintptr_t)p, 0, e);
    return p;
}

static void *t_memalign(const char *what, size_t align, size_t n)
{
    begin();
    void *p = memalign(align, n);
    int e = errno;
    expect(what, SHIM_MEMALIGN, align, n, 0, (uintptr_t)p, 0, e);
    return p;
}

/* The fixed cases, one of each kind of misuse. */
static void fixed_cases(void *page)
{
    int local = 0;
    void *p, *q;

    t_malloc("malloc(0) kept", 0);
    t_free("free(malloc(0))", t_malloc("malloc(0)", 0));
    t_malloc("malloc(SIZE_MAX)", SIZE_MAX);
    t_malloc("malloc(SIZE_MAX/2)", SIZE_MAX / 2);
    t_malloc("malloc(SIZE_MAX-4095)", SIZE_MAX - 4095);
    t_malloc("malloc(2^40)", (size_t)1 << 40);

    t_calloc("calloc(SIZE_MAX/2, 3): overflow", SIZE_MAX / 2, 3);
    t_calloc("calloc(3, SIZE_MAX/2): overflow", 3, SIZE_MAX / 2);
    t_calloc("calloc(2^33, 2^33): overflow", (size_t)1 << 33, (size_t)1 << 33);
    t_calloc("calloc(0, SIZE_MAX)", 0, SIZE_MAX);
    t_calloc("calloc(SIZE_MAX, 0)", SIZE_MAX, 0);
    t_calloc("calloc(2^20, 2^11): too large", (size_t)1 << 20, (size_t)1 << 11);
    t_calloc("calloc(4, 25) kept", 4, 25);

    p = t_malloc("malloc(100)", 100);
    t_free("free", p);
    t_free("double free", L(p));

    /* A double free of a block the allocator handed out again frees the new block. */
    p = t_malloc("malloc(48)", 48);
    t_free("free", p);
    q = t_malloc("malloc(48) again", 48);
    t_free("double free of a reused address", L(p));
    t_free("free of the reused block, freed already", q);

    t_free("free(stack address)", L(&local));
    p = t_malloc("malloc(256) kept", 256);
    t_free("free(middle of a block)", L((char *)p + 16));
    t_free("free(unaligned middle)", L((char *)p + 1));
    t_free("free(mmap page)", L(page));
    t_free("free(NULL)", NULL);
    t_realloc("realloc(mmap page, 10)", L(page), 10);
    t_realloc("realloc(stack address, 10)", L(&local), 10);
    t_realloc("realloc(middle of a block, 500)", L((char *)p + 16), 500);

    p = t_malloc("malloc(64)", 64);
    t_free("free", p);
    t_realloc("realloc(freed block, 80) kept", L(p), 80);

    p = t_malloc("malloc(64)", 64);
    t_realloc("realloc(p, 0)", p, 0);
    t_free("free after realloc(p, 0)", L(p));
    t_realloc("realloc(NULL, 0) kept", NULL, 0);
    t_realloc("realloc(NULL, 100) kept", NULL, 100);

    p = t_malloc("malloc(200)", 200);
    q = t_realloc("realloc(p, SIZE_MAX)", p, SIZE_MAX);
    q = t_realloc("realloc(p, SIZE_MAX/2)", p, SIZE_MAX / 2);
    q = t_realloc("realloc(p, 10): in place", p, 10);
    q = t_realloc("realloc(p, 5000): moved, kept", q, 5000);

    t_posix_memalign("posix_memalign(3, 16)", 3, 16);
    t_posix_memalign("posix_memalign(0, 16)", 0, 16);
    t_posix_memalign("posix_memalign(4, 16)", 4, 16);
    t_posix_memalign("posix_memalign(24, 16)", 24, 16);
    t_posix_memalign("posix_memalign(2^40, 16)", (size_t)1 << 40, 16);
    t_posix_memalign("posix_memalign(64, SIZE_MAX)", 64, SIZE_MAX);
    t_posix_memalign("posix_memalign(2^63, 16)", (size_t)1 << 63, 16);
    t_posix_memalign("posix_memalign(64, 100) kept", 64, 100);
    t_posix_memalign("posix_memalign(4096, 0) kept", 4096, 0);

    t_aligned_alloc("aligned_alloc(3, 16)", 3, 16);
    t_aligned_alloc("aligned_alloc(0, 16)", 0, 16);
    t_aligned_alloc("aligned_alloc(64, SIZE_MAX)", 64, SIZE_MAX);
    t_aligned_alloc("aligned_alloc(2^63, 16)", (size_t)1 << 63, 16);
    t_aligned_alloc("aligned_alloc(64, 100) kept", 64, 100);
    t_aligned_alloc("aligned_alloc(16, 0) kept", 16, 0);

    t_memalign("memalign(3, 16)", 3, 16);
    t_memalign("memalign(0, 16)", 0, 16);
    t_memalign("memalign(2^62, 16)", (size_t)1 << 62, 16);
    t_memalign("memalign(32, 200) kept", 32, 200);
}

/* A seeded random mix: ordinary calls with double frees, foreign frees, reallocs of freed blocks
 * and huge requests among them. */
#define POOL 512
static void random_cases(void *page, unsigned long rounds)
{
    void *held[POOL] = {0}, *gone[POOL] = {0};
    uint64_t x = 0x9e3779b97f4a7c15ull;
    int local;

    for (unsigned long i = 0; i < rounds; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        unsigned r = (unsigned)(x >> 33), k = r % POOL, op = (r >> 9) % 16;
        size_t size = (size_t)((r >> 13) % 300);
        void *p;
        switch (op) {
        case 0: case 1: case 2: case 3:
            if (held[k] != NULL) {
                t_free("free", held[k]);
                gone[k] = held[k];
            }
            held[k] = t_malloc("malloc", size);
            break;
        case 4:
            if (held[k] != NULL) {
                t_free("free", held[k]);
                gone[k] = held[k];
            }
            held[k] = t_calloc("calloc", size % 8, size / 8);
            break;
        case 5: case 6:
            p = t_realloc("realloc", held[k], size);
            if (p != NULL || size == 0) {
                if (held[k] != NULL && p != held[k])
                    gone[k] = held[k];
                held[k] = p;
            }
            break;
        case 7:
            if (gone[k] != NULL)
                t_free("double free", L(gone[k]));
            break;
        case 8:
            if (gone[k] != NULL) {
                p = t_realloc("realloc of a freed block", L(gone[k]), size + 1);
                if (p != NULL) {
                    if (held[k] != NULL && held[k] != p)
                        t_free("free", held[k]);
                    held[k] = p;
                }
            }
            break;
        case 9:
            t_free("free of a foreign pointer",
                   L(r & 1 ? (void *)&local : held[k] != NULL ? (char *)held[k] + 16 : page));
            break;
        case 10:
            t_malloc("huge malloc", SIZE_MAX - size);
            break;
        case 11:
            t_calloc("overflowing calloc", SIZE_MAX / (size + 2) + 1, size + 2);
            break;
        case 12:
            p = t_aligned_alloc("aligned_alloc", (size_t)1 << (size % 8), size);
            if (p != NULL) {
                if (held[k] != NULL)
                    t_free("free", held[k]);
                held[k] = p;
            }
            break;
        case 13:
            t_posix_memalign("posix_memalign with a bad alignment", size | 1, size);
            break;
        case 14:
            if (held[k] != NULL) {
                p = t_realloc("realloc(p, 0)", held[k], 0);
                gone[k] = held[k];
                held[k] = p;
            }
            break;
        default:
            t_memalign("memalign", (size_t)8 << (size % 5), size);
            break;
        }
    }
}

static int cmp_addr(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

/* msamp's live table against the allocator's live blocks. */
static void check_live_table(void)
{
    static uintptr_t addrs[1u << 16];
    static void *app[1u << 16];
    static size_t sizes[1u << 16];
    const struct msamp_heapdump_v3 *h = &msamp_heapdump;
    struct msamp_stats st;
    size_t n = 0, napp;
    unsigned long live_bytes = 0;

    if (atomic_load(&h->magic) != MSAMP_HEAPDUMP_MAGIC || h->version != MSAMP_HEAPDUMP_VERSION ||
        msamp_get_stats(&st) != 0) {
        printf("FAIL no msamp heapdump block or statistics (is msamp running?)\n");
        failures++;
        return;
    }
    for (uint32_t i = 0; i < h->live_capacity; i++) {
        uintptr_t a = atomic_load(&h->live_addr[i]);
        size_t size;
        int mine;
        if (a == 0)
            continue;
        if (n < sizeof addrs / sizeof addrs[0])
            addrs[n] = a;
        n++;
        if (!shim_live((void *)a, &size, &mine) || !mine) {
            printf("FAIL live table slot %u holds %#lx, which is no live block of the program's\n", i,
                   (unsigned long)a);
            failures++;
        } else if (size != h->live_size[i]) {
            printf("FAIL live table slot %u: %#lx of %lu bytes, the allocator says %lu\n", i,
                   (unsigned long)a, (unsigned long)h->live_size[i], (unsigned long)size);
            failures++;
        }
    }
    qsort(addrs, n, sizeof addrs[0], cmp_addr);
    for (size_t i = 1; i < n; i++)
        if (addrs[i] == addrs[i - 1]) {
            printf("FAIL live table holds %#lx twice\n", (unsigned long)addrs[i]);
            failures++;
        }
    if (st.live_used != n) {
        printf("FAIL msamp_get_stats says %u live entries, the table holds %zu\n", st.live_used, n);
        failures++;
    }
    napp = shim_app_live(app, sizes, sizeof app / sizeof app[0]);
    size_t tracked = 0, nonzero = 0;
    for (size_t i = 0; i < napp && i < sizeof app / sizeof app[0]; i++) {
        uintptr_t a = (uintptr_t)app[i];
        live_bytes += sizes[i];
        if (sizes[i] == 0)
            continue;
        nonzero++;
        if (bsearch(&a, addrs, n, sizeof addrs[0], cmp_addr) != NULL)
            tracked++;
        else if (st.interval == 1 && st.live_full == 0)
            printf("FAIL block %#lx of %zu bytes is live but not in the table at interval 1\n",
                   (unsigned long)a, sizes[i]),
                failures++;
    }
    printf("interval %u: %zu live blocks of the program's (%zu of a non-zero size), %zu in msamp's "
           "live table, %zu entries in all; live_full %u\n",
           st.interval, napp, nonzero, tracked, n, st.live_full);
    printf("live_bytes %lu\n", live_bytes);
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    launder = launder_fn;
    if (page == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    fixed_cases(page);
    random_cases(page, rounds);
    check_live_table();
    printf("%lu calls checked; the allocator saw %lu double frees and %lu foreign frees\n", calls,
           shim_double_frees, shim_foreign_frees);
    if (shim_double_frees == 0 || shim_foreign_frees == 0) {
        printf("FAIL the misuse did not reach the allocator\n");
        failures++;
    }
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
