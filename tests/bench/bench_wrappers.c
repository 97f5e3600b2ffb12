/*
 * One wrapper at a time, for `make bench-wrappers` (tests/bench/wrappers.sh): each workload calls
 * exactly one wrapped function N times and reaches the others through their __real_ names, which
 * --wrap binds to the real functions, so the instructions a build adds are that wrapper's alone.
 *   bench_wrappers malloc N    p = malloc(s);        __real_free(p)
 *   bench_wrappers free N      p = __real_malloc(s); free(p)
 *   bench_wrappers calloc N    p = calloc(1, s);     __real_free(p)
 *   bench_wrappers realloc N   p = __real_malloc(s); p = realloc(p, s2); __real_free(p)
 * s and s2 are small sizes (16..271 bytes) from a fixed table, the same in every build. Built three
 * ways: unwrapped (-DBENCH_NONE: the __real_ names are the plain functions), with the bare counting
 * wrapper (tests/bench/bare_wrap.c) and with msamp. Build with -fno-builtin: the compiler must not
 * fold a malloc and its free away.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef BENCH_NONE
#define __real_malloc malloc
#define __real_free free
#else
void *__real_malloc(size_t size);
void __real_free(void *p);
#endif

static size_t sizes[64];
static void *volatile sink;

static void fail(void)
{
    fputs("bench_wrappers: allocation failed\n", stderr);
    exit(1);
}

__attribute__((noinline)) static void w_malloc(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++) {
        void *p = malloc(sizes[i & 63]);
        if (p == NULL)
            fail();
        sink = p;
        __real_free(p);
    }
}

__attribute__((noinline)) static void w_free(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++) {
        void *p = __real_malloc(sizes[i & 63]);
        if (p == NULL)
            fail();
        sink = p;
        free(p);
    }
}

__attribute__((noinline)) static void w_calloc(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++) {
        void *p = calloc(1, sizes[i & 63]);
        if (p == NULL)
            fail();
        sink = p;
        __real_free(p);
    }
}

__attribute__((noinline)) static void w_realloc(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++) {
        void *p = __real_malloc(sizes[i & 63]);
        if (p == NULL)
            fail();
        sink = p;
        p = realloc(p, sizes[(i + 17) & 63]);
        if (p == NULL)
            fail();
        sink = p;
        __real_free(p);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: bench_wrappers malloc|free|calloc|realloc N\n", stderr);
        return 2;
    }
    uint32_t x = 0x9e3779b9u;
    for (int i = 0; i < 64; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        sizes[i] = 16 + x % 256;
    }
    unsigned long n = strtoul(argv[2], NULL, 10);
    if (strcmp(argv[1], "malloc") == 0)
        w_malloc(n);
    else if (strcmp(argv[1], "free") == 0)
        w_free(n);
    else if (strcmp(argv[1], "calloc") == 0)
        w_calloc(n);
    else if (strcmp(argv[1], "realloc") == 0)
        w_realloc(n);
    else
        return 2;
    printf("%s calls %lu\n", argv[1], n);
    return 0;
}
