/*
 * A program with known allocation sites for the hosted end-to-end test. Each site_* function calls
 * the allocator itself (no tail call: it stores to a volatile after the call) and is reached from
 * a known caller. The program counts what it allocated and still holds per site and size, and
 * writes that truth to argv[1] for msamp_check (lines "site NAME SIZE ALLOCATED LIVE" and
 * "caller NAME CALLER"). Held blocks are kept until exit, so they are live at msamp's final flush.
 * Usage: e2e_app TRUTH_FILE [SCALE]   (SCALE multiplies the number of allocations, default 1)
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* No inlining and no specialised clones (site_small.constprop.0): each site keeps its name. */
#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

static volatile uintptr_t sink;

struct truth {
    const char *site, *caller;
    size_t size;
    unsigned long allocated, live;
};

static struct truth truth[64];
static unsigned ntruth;

static void count(const char *site, const char *caller, size_t size, int alloc, int live)
{
    unsigned i;
    for (i = 0; i < ntruth; i++)
        if (truth[i].site == site && truth[i].size == size)
            break;
    if (i == ntruth) {
        if (ntruth == 64)
            abort();
        truth[ntruth++] = (struct truth){site, caller, size, 0, 0};
    }
    truth[i].allocated += (unsigned long)alloc;
    truth[i].live = (unsigned long)((long)truth[i].live + live);
}

/* Blocks held until exit. */
static void *held[1 << 20];
static unsigned nheld;

static void hold(void *p)
{
    if (p == NULL || nheld == sizeof held / sizeof held[0])
        abort();
    held[nheld++] = p;
}

static void release(void *p)
{
    sink ^= (uintptr_t)p;
    free(p);
}

NOINLINE static void *site_small(size_t n)
{
    void *p = malloc(n);
    sink ^= (uintptr_t)p + 1; /* distinct bodies: no identical-code folding */
    return p;
}

NOINLINE static void *site_medium(size_t n)
{
    void *p = malloc(n);
    sink ^= (uintptr_t)p + 2;
    return p;
}

NOINLINE static void *site_large(size_t n)
{
    void *p = malloc(n);
    sink ^= (uintptr_t)p + 3;
    return p;
}

NOINLINE static void *site_calloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    sink ^= (uintptr_t)p + 4;
    return p;
}

NOINLINE static void *site_realloc(void *old, size_t n)
{
    void *p = realloc(old, n);
    sink ^= (uintptr_t)p + 5;
    return p;
}

NOINLINE static void *site_posix_memalign(size_t align, size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, align, n) != 0)
        abort();
    sink ^= (uintptr_t)p + 6;
    return p;
}

NOINLINE static void *site_aligned_alloc(size_t align, size_t n)
{
    void *p = aligned_alloc(align, n);
    sink ^= (uintptr_t)p + 7;
    return p;
}

NOINLINE static void *site_memalign(size_t align, size_t n)
{
    void *p = memalign(align, n);
    sink ^= (uintptr_t)p + 8;
    return p;
}

NOINLINE static void *site_deep(size_t n)
{
    void *p = malloc(n);
    sink ^= (uintptr_t)p + 9;
    return p;
}

NOINLINE static void *deep_mid2(size_t n)
{
    void *p = site_deep(n);
    sink ^= (uintptr_t)p + 10;
    return p;
}

NOINLINE static void *deep_mid1(size_t n)
{
    void *p = deep_mid2(n);
    sink ^= (uintptr_t)p + 11;
    return p;
}

#define C "workload"

/* One round touches every site; rounds are interleaved so no site owns a stretch of the stream. */
NOINLINE static void workload(unsigned i)
{
    void *p;

    p = site_small(48);
    count("site_small", C, 48, 1, 0);
    if (i % 8 == 0) {
        hold(p);
        count("site_small", C, 48, 0, 1);
    } else {
        release(p);
    }
    p = site_small(200);
    count("site_small", C, 200, 1, 0);
    release(p);

    p = site_medium(3000);
    count("site_medium", C, 3000, 1, 0);
    release(p);

    if (i % 512 == 0) {
        p = site_large(1 << 20);
        count("site_large", C, 1 << 20, 1, 0);
        if (i % 1024 == 0) {
            hold(p);
            count("site_large", C, 1 << 20, 0, 1);
        } else {
            release(p);
        }
    }

    p = site_calloc(10, 100);
    count("site_calloc", C, 1000, 1, 0);
    if (((unsigned char *)p)[999] != 0)
        abort();
    if (i % 16 == 0) {
        hold(p);
        count("site_calloc", C, 1000, 0, 1);
    } else {
        release(p);
    }

    if (i % 16 == 0) {
        /* A realloc chain: each step is one sampled-by-size allocation of the new size that
         * frees the previous block. */
        p = NULL;
        for (size_t n = 64; n <= 65536; n *= 2) {
            p = site_realloc(p, n);
            count("site_realloc", C, n, 1, 0);
        }
        if (i % 256 == 0) {
            hold(p);
            count("site_realloc", C, 65536, 0, 1);
        } else {
            release(p);
        }
    }

    p = site_posix_memalign(64, 2000);
    count("site_posix_memalign", C, 2000, 1, 0);
    if ((uintptr_t)p % 64 != 0)
        abort();
    if (i % 16 == 0) {
        hold(p);
        count("site_posix_memalign", C, 2000, 0, 1);
    } else {
        release(p);
    }

    p = site_aligned_alloc(256, 4096);
    count("site_aligned_alloc", C, 4096, 1, 0);
    if ((uintptr_t)p % 256 != 0)
        abort();
    release(p);

    p = site_memalign(128, 512);
    count("site_memalign", C, 512, 1, 0);
    if ((uintptr_t)p % 128 != 0)
        abort();
    if (i % 8 == 0) {
        hold(p);
        count("site_memalign", C, 512, 0, 1);
    } else {
        release(p);
    }

    p = deep_mid1(700);
    count("site_deep", "deep_mid2", 700, 1, 0);
    if (i % 10 == 0) {
        hold(p);
        count("site_deep", "deep_mid2", 700, 0, 1);
    } else {
        release(p);
    }
}

int main(int argc, char **argv)
{
    unsigned scale = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 1;
    FILE *out;

    if (argc < 2 || scale == 0) {
        fprintf(stderr, "usage: e2e_app TRUTH_FILE [SCALE]\n");
        return 2;
    }
    for (unsigned i = 0; i < 20000 * scale; i++)
        workload(i);
    out = fopen(argv[1], "w");
    if (out == NULL) {
        perror(argv[1]);
        return 2;
    }
    for (unsigned i = 0; i < ntruth; i++) {
        fprintf(out, "site %s %zu %lu %lu\n", truth[i].site, truth[i].size, truth[i].allocated,
                truth[i].live);
        fprintf(out, "caller %s %s\n", truth[i].site, truth[i].caller);
    }
    fclose(out);
    printf("e2e_app: %u blocks held\n", nheld);
    return 0;
}
