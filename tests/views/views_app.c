/*
 * The views' test program (tests/views/t_views.sh): linked against the hosted library, it grows
 * and shrinks its heap in phases from known functions, writes a MARK at the end of each phase and
 * pauses, and changes the sampling interval once (an INTERVAL record). At exit it writes its truth,
 * one line per phase:
 *   NAME T_NS TOTAL GROW SMALL BURST SIGMA
 * T_NS: CLOCK_MONOTONIC (the hosted port's device clock, in ns) right after the phase's MARK;
 * TOTAL, GROW, SMALL, BURST: the bytes it holds then, in all and by function; SIGMA: the standard
 * deviation of the in-use estimate of what it holds (sum over blocks of size^2 (1 - p) / p, p the
 * probability a block of that size was sampled at the interval it was allocated at).
 * usage: views_app TRUTH.txt   (run with MSAMP_OUTPUT=stream.bin MSAMP_INTERVAL=4096)
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "msamp.h"

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

#define GROW_N 24
#define GROW_SIZE 65536
#define SMALL_N 4000
#define SMALL_SIZE 256
#define BURST_N 32
#define BURST_SIZE 49152
#define PAUSE_MS 60

static volatile uintptr_t sink;
static void *grow_blk[GROW_N], *small_blk[SMALL_N], *burst_blk[BURST_N];
static size_t ngrow, nsmall, nburst;
static double interval = 4096, var_grow, var_small, var_burst;

static double block_var(double size)
{
    double p = 1 - exp(-size / interval);
    return size * size * (1 - p) / p;
}

NOINLINE static void grow_cache(size_t n)
{
    for (size_t i = 0; i < n; i++) {
        grow_blk[ngrow++] = malloc(GROW_SIZE);
        sink = (uintptr_t)grow_blk[ngrow - 1];
        var_grow += block_var(GROW_SIZE);
    }
}

NOINLINE static void fill_small(size_t n)
{
    for (size_t i = 0; i < n; i++) {
        small_blk[nsmall++] = malloc(SMALL_SIZE);
        sink = (uintptr_t)small_blk[nsmall - 1];
        var_small += block_var(SMALL_SIZE);
    }
}

NOINLINE static void burst(size_t n)
{
    for (size_t i = 0; i < n; i++) {
        burst_blk[nburst++] = malloc(BURST_SIZE);
        sink = (uintptr_t)burst_blk[nburst - 1];
        var_burst += block_var(BURST_SIZE);
    }
}

/* Frees the last n blocks of an array; var: the variance they carried (the same per block:
 * each array's blocks were all allocated at one interval here). */
static void release(void **blk, size_t *count, size_t n, double *var)
{
    double per = *count ? *var / (double)*count : 0;
    for (size_t i = 0; i < n && *count; i++) {
        free(blk[--*count]);
        *var -= per;
    }
}

static struct {
    const char *name;
    uint64_t t;
    size_t grow, small, burst;
    double sigma;
} truth[16];
static size_t ntruth;

static void phase(const char *name)
{
    if (msamp_mark(name, strlen(name)) != 0) {
        msamp_flush();
        msamp_mark(name, strlen(name));
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    truth[ntruth].name = name;
    truth[ntruth].t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    truth[ntruth].grow = ngrow * GROW_SIZE;
    truth[ntruth].small = nsmall * SMALL_SIZE;
    truth[ntruth].burst = nburst * BURST_SIZE;
    truth[ntruth].sigma = sqrt(var_grow + var_small + var_burst);
    ntruth++;
    msamp_flush();
    struct timespec pause = {0, PAUSE_MS * 1000000L};
    nanosleep(&pause, NULL);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: views_app TRUTH.txt\n");
        return 2;
    }
    const char *iv = getenv("MSAMP_INTERVAL");
    if (iv)
        interval = atof(iv);
    phase("start");
    grow_cache(GROW_N);
    phase("grown");
    fill_small(SMALL_N);
    phase("filled");
    if (msamp_set_interval(16384) != 0) {
        msamp_flush();
        if (msamp_set_interval(16384) != 0)
            return 1;
    }
    interval = 16384;
    burst(BURST_N);
    phase("burst peak");
    release(burst_blk, &nburst, BURST_N, &var_burst);
    phase("burst freed");
    release(grow_blk, &ngrow, GROW_N * 2 / 3, &var_grow);
    phase("shrunk");
    release(small_blk, &nsmall, SMALL_N / 2, &var_small);
    phase("end");
    FILE *f = fopen(argv[1], "w");
    if (!f)
        return 1;
    for (size_t i = 0; i < ntruth; i++)
        fprintf(f, "%s\t%llu\t%zu\t%zu\t%zu\t%zu\t%.0f\n", truth[i].name,
                (unsigned long long)truth[i].t,
                truth[i].grow + truth[i].small + truth[i].burst, truth[i].grow, truth[i].small,
                truth[i].burst, truth[i].sigma);
    return fclose(f) != 0;
}
