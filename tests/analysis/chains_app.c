/*
 * Allocated bytes as peers count them (docs/DRAIN.md "Realloc chains"): every block the allocator
 * returns counts once, at the stack of the call that returned it, a realloc's at its new size. A
 * hosted program whose realloc chains have known truth, written per leaf function:
 *   - arrays doubled by realloc from 1 KiB to 1 MiB: arr_new's malloc(1024), then arr_grow's
 *     reallocs to 2 KiB, 4 KiB, ... 1 MiB;
 *   - 100 -> 1000 -> 4000 byte chains: chain_first's malloc(100), chain_mid's realloc to 1000,
 *     chain_last's realloc to 4000;
 *   - small blocks kept (small_keep, 48 bytes): they fill a small live table, so the adaptive
 *     interval rises during the run when the table is small (MSAMP_LIVE_CAPACITY).
 * Every third chain and every fourth array is kept to the end, the others freed. The truth lines
 * are "site NAME alloc_objects alloc_bytes inuse_objects inuse_bytes VAR_OBJECTS VAR_BYTES", in-use
 * at the chain's first site (the chain's latest size), the allocated estimates' variance at the
 * start interval, and "total - ..." over all of them.
 * usage: chains_app TRUTH.txt   (run with MSAMP_OUTPUT=stream.bin MSAMP_INTERVAL=R)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

static volatile uintptr_t sink;

enum { ARR_NEW, ARR_GROW, CHAIN_FIRST, CHAIN_MID, CHAIN_LAST, SMALL_KEEP, NSITES };
static const char *const names[NSITES] = {"arr_new",    "arr_grow",   "chain_first",
                                          "chain_mid",  "chain_last", "small_keep"};
static unsigned long an[NSITES], ab[NSITES], in[NSITES], ib[NSITES];
/* The variance of the Poisson-sampling estimates at the start interval R: sum (1 - p) / p objects
 * and s^2 (1 - p) / p bytes, p = 1 - exp(-s / R) (a rising interval makes it larger). */
static double vn[NSITES], vb[NSITES], R = 524288;

static void note(int site, size_t size)
{
    an[site]++;
    ab[site] += size;
    double p = R <= 1 ? 1 : -expm1(-(double)size / R);
    vn[site] += (1 - p) / p;
    vb[site] += (double)size * (double)size * (1 - p) / p;
}

static void *must(void *p)
{
    if (p == NULL) {
        fprintf(stderr, "chains_app: out of memory\n");
        exit(1);
    }
    sink = (uintptr_t)p;
    return p;
}

NOINLINE static void *arr_new(void)
{
    note(ARR_NEW, 1024);
    return must(malloc(1024));
}

NOINLINE static void *arr_grow(void *p, size_t n)
{
    note(ARR_GROW, n);
    return must(realloc(p, n));
}

NOINLINE static void *chain_first(void)
{
    note(CHAIN_FIRST, 100);
    return must(malloc(100));
}

NOINLINE static void *chain_mid(void *p)
{
    note(CHAIN_MID, 1000);
    return must(realloc(p, 1000));
}

NOINLINE static void *chain_last(void *p)
{
    note(CHAIN_LAST, 4000);
    return must(realloc(p, 4000));
}

NOINLINE static void *small_keep(void)
{
    note(SMALL_KEEP, 48);
    return must(malloc(48));
}

#define NCHAINS 6000
#define NARRAYS 64
#define NSMALL 40000
static void *kept[NCHAINS + NARRAYS + NSMALL];
static unsigned nkept;

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: chains_app TRUTH.txt\n");
        return 2;
    }
    const char *e = getenv("MSAMP_INTERVAL");
    if (e != NULL && atof(e) >= 1)
        R = atof(e);
    for (int i = 0; i < NCHAINS; i++) {
        void *c = chain_last(chain_mid(chain_first()));
        if (i % 3 == 0) {
            kept[nkept++] = c;
            in[CHAIN_FIRST]++;
            ib[CHAIN_FIRST] += 4000;
        } else {
            free(c);
        }
        for (int k = 0; k < NSMALL / NCHAINS; k++) {
            kept[nkept++] = small_keep();
            in[SMALL_KEEP]++;
            ib[SMALL_KEEP] += 48;
        }
        if (i % (NCHAINS / NARRAYS) == 0) {
            int a = i / (NCHAINS / NARRAYS);
            void *p = arr_new();
            for (size_t n = 2048; n <= ((size_t)1 << 20); n *= 2)
                p = arr_grow(p, n);
            if (a % 4 == 0) {
                kept[nkept++] = p;
                in[ARR_NEW]++;
                ib[ARR_NEW] += (size_t)1 << 20;
            } else {
                free(p);
            }
        }
    }
    FILE *f = fopen(argv[1], "w");
    if (!f)
        return 1;
    unsigned long t[4] = {0};
    double tv[2] = {0};
    for (int s = 0; s < NSITES; s++) {
        fprintf(f, "site %s %lu %lu %lu %lu %.6g %.6g\n", names[s], an[s], ab[s], in[s], ib[s],
                vn[s], vb[s]);
        t[0] += an[s];
        t[1] += ab[s];
        t[2] += in[s];
        t[3] += ib[s];
        tv[0] += vn[s];
        tv[1] += vb[s];
    }
    fprintf(f, "total - %lu %lu %lu %lu %.6g %.6g\n", t[0], t[1], t[2], t[3], tv[0], tv[1]);
    fclose(f);
    return 0; /* the kept blocks stay live: the profile's in-use at exit */
}
