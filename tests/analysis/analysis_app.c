/*
 * The analysis end-to-end program (tests/analysis/t_analysis.sh): linked against the hosted
 * library, it makes allocations whose lifetimes, realloc chain and peak it knows, and writes them
 * as "key value" lines to TRUTH:
 *   a realloc chain started in chain_start (1024 bytes) and grown by chain_grow to 65536 bytes,
 *     live at exit, its first allocation before a 300 ms pause;
 *   short_lived: SHORT allocations of 64 bytes, each freed at once;
 *   long_lived: one allocation of 4096 bytes freed after the 300 ms pause;
 *   keep: 512 and 768 bytes from two call sites in scenario, live at exit;
 *   peak_phase: PEAK_N blocks of PEAK_SIZE bytes held 50 ms, then freed: the program's in-use
 *     peak (every byte it holds then), and the standard deviation of drain's estimate of it at
 *     interval MSAMP_INTERVAL (drain's peak profile is one half of the samples: sqrt of the sum
 *     over its live blocks of s^2 (1 - q) / q, q = 1 - sqrt(1 - p), p = 1 - exp(-s / R)).
 * It allocates nothing else (no stdio: the truth is written with write()).
 * usage: analysis_app TRUTH   (MSAMP_OUTPUT, MSAMP_INTERVAL, MSAMP_DEVICE_ID from the environment)
 *
 * Built with -DANALYSIS_BOARD it is firmware for a board (boards/board_api.h, the demo's heap):
 * msamp_init at interval 1 with the device id "board-1", a smaller peak phase (the heap is
 * 512 KiB), msamp_poll() while it runs, and the truth as "analysis-truth KEY VALUE" lines on the
 * board console.
 */
#include <stddef.h>
#include <stdint.h>
#ifdef ANALYSIS_BOARD
#include "board_api.h"
#include "demo.h" /* the demo's heap: malloc, realloc, free, and demo_fail for its faults */
#include "msamp.h"
#define PEAK_N 100
#else
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#define PEAK_N 2000
#endif

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

#define SHORT 500
#define PEAK_SIZE 2048

static volatile uintptr_t sink;
static void *peak_blocks[PEAK_N];
static uint64_t inuse, peak;
#ifndef ANALYSIS_BOARD
static double peak_var, interval = 1; /* no floating point on the board: it runs at interval 1 */
#endif
/* The sizes the program holds, to compute the peak's variance: the chain and the peak blocks. */
static uint64_t chain_size;

#ifdef ANALYSIS_BOARD
/* The ring drains while the firmware runs (every allocation is a sample at interval 1). */
static void poll(void)
{
    (void)msamp_poll();
}

static void pause_ms(long ms)
{
    uint64_t end = board_ticks() + board_tick_hz() * (uint64_t)ms / 1000u;
    while (board_ticks() < end)
        poll();
}
#else
static void poll(void)
{
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static double var_of(uint64_t s)
{
    if (interval <= 1)
        return 0;
    /* drain's peak profile is half B's estimate (docs/VERDICTS.md "The peak"): a block sampled
     * with probability p is in it with probability q = 1 - sqrt(1 - p). */
    double p = -expm1(-(double)s / interval), q = -expm1(0.5 * log1p(-p));
    return (double)s * (double)s * (1 - q) / q;
}
#endif

NOINLINE static void *chain_start(size_t n)
{
    void *p = malloc(n);
    sink = (uintptr_t)p;
    inuse += n;
    chain_size = n;
    return p;
}

NOINLINE static void *chain_grow(void *p, size_t n)
{
    void *q = realloc(p, n);
    sink = (uintptr_t)q;
    inuse += n - chain_size;
    chain_size = n;
    return q;
}

NOINLINE static void short_lived(int n)
{
    for (int i = 0; i < n; i++) {
        void *p = malloc(64);
        sink = (uintptr_t)p;
        free(p);
        poll();
    }
}

NOINLINE static void *long_lived(void)
{
    void *p = malloc(4096);
    sink = (uintptr_t)p;
    inuse += 4096;
    return p;
}

NOINLINE static void peak_phase(void)
{
    for (int i = 0; i < PEAK_N; i++) {
        peak_blocks[i] = malloc(PEAK_SIZE);
        sink = (uintptr_t)peak_blocks[i];
        poll();
    }
    inuse += (uint64_t)PEAK_N * PEAK_SIZE;
    peak = inuse;
#ifndef ANALYSIS_BOARD
    peak_var = var_of(chain_size) + var_of(512) + var_of(768) + PEAK_N * var_of(PEAK_SIZE);
#endif
    pause_ms(50);
    for (int i = 0; i < PEAK_N; i++)
        free(peak_blocks[i]);
    inuse -= (uint64_t)PEAK_N * PEAK_SIZE;
}

/* A block live at exit, from two call sites (two stacks through one function). */
static void *kept[2];
NOINLINE static void *keep(size_t n)
{
    void *p = malloc(n);
    sink = (uintptr_t)p;
    inuse += n;
    return p;
}

/* The allocations the truth describes; returns the chain, live at exit. */
NOINLINE static void *scenario(void)
{
    kept[0] = keep(512);
    kept[1] = keep(768);
    void *chain = chain_start(1024);
    void *held = long_lived();
    short_lived(SHORT);
    pause_ms(300);
    free(held);
    inuse -= 4096;
    peak_phase();
    chain = chain_grow(chain, 2048);
    chain = chain_grow(chain, 8192);
    return chain_grow(chain, 65536);
}

#ifdef ANALYSIS_BOARD
_Noreturn void demo_fail(const char *what)
{
    board_console("analysis: heap fault: ");
    board_console(what);
    board_console("\n");
    board_exit(1);
}

static void put_truth(const char *key, uint64_t v)
{
    char line[80], digits[24];
    size_t n = 0, k = 0;
    for (const char *c = "analysis-truth "; *c; c++)
        line[n++] = *c;
    for (const char *c = key; *c && n < 50; c++)
        line[n++] = *c;
    line[n++] = ' ';
    do
        digits[k++] = (char)('0' + v % 10u);
    while ((v /= 10u) != 0);
    while (k > 0)
        line[n++] = digits[--k];
    line[n++] = '\n';
    line[n] = 0;
    board_console(line);
}

int main(void)
{
    board_init();
    struct msamp_config cfg = {.interval = 1, .seed = 1, .device_id = "board-1"};
    if (msamp_init(&cfg) != 0) {
        board_console("analysis: msamp_init failed\n");
        board_exit(1);
    }
    sink = (uintptr_t)scenario(); /* the chain: live at exit */
    if (msamp_flush() < 0) {
        board_console("analysis: msamp_flush failed\n");
        board_exit(1);
    }
    put_truth("chain_bytes", chain_size);
    put_truth("short_objects", SHORT);
    put_truth("long_bytes", 4096);
    put_truth("peak_bytes", peak);
    put_truth("peak_sd", 0);
    board_console("analysis done\n");
    return 0;
}

#else
int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    const char *r = getenv("MSAMP_INTERVAL");
    if (r)
        interval = atof(r);
    void *chain = scenario();

    char text[512];
    int n = snprintf(text, sizeof(text),
                     "chain_bytes %llu\nshort_objects %d\nlong_bytes 4096\npeak_bytes %llu\n"
                     "peak_sd %.0f\n",
                     (unsigned long long)chain_size, SHORT, (unsigned long long)peak,
                     sqrt(peak_var));
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || n <= 0 || write(fd, text, (size_t)n) != n || close(fd) != 0)
        return 1;
    sink = (uintptr_t)chain; /* live at exit */
    return 0;
}
#endif
