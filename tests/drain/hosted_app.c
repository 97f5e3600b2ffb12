/*
 * drain's hosted end-to-end program: linked against build/hosted/libmsamp.a (the real library,
 * wrapping malloc/free/realloc), it allocates from known functions, one of them always inlined,
 * one growing blocks with realloc (a realloc chain: in use at its first site, start_buffer, at its
 * latest size; allocated where each block was asked for, start_buffer's 40000 bytes and
 * grow_buffers' 50000: docs/DRAIN.md "Realloc chains"), and writes
 * the truth per leaf function: "site NAME - alloc_objects alloc_bytes inuse_objects inuse_bytes"
 * (check_truth.sh's format keyed by function name). Held blocks stay live until exit.
 * usage: hosted_app TRUTH.txt [CHURN]   (run with MSAMP_OUTPUT=stream.bin MSAMP_INTERVAL=R)
 * CHURN: churn_buffers' allocations (default 20000; t_end.sh's stalled reader needs more events
 * than its ring and pipe hold).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

static volatile uintptr_t sink;
static void *held[40000];
static unsigned nheld;

static struct {
    const char *name;
    unsigned long an, ab, in, ib;
} truth[8];

static void note(int site, const char *name, size_t size, int live)
{
    truth[site].name = name;
    truth[site].an++;
    truth[site].ab += size;
    truth[site].in += (unsigned long)live;
    truth[site].ib += live ? size : 0;
}

static inline __attribute__((always_inline)) void *inline_node(size_t n)
{
    void *p = malloc(n);
    sink = (uintptr_t)p;
    return p;
}

NOINLINE static void make_list(int count)
{
    for (int i = 0; i < count; i++) {
        held[nheld++] = inline_node(192);
        note(0, "inline_node", 192, 1);
    }
}

NOINLINE static void churn_buffers(int count)
{
    for (int i = 0; i < count; i++) {
        void *p = malloc(3000);
        sink = (uintptr_t)p;
        note(1, "churn_buffers", 3000, 0);
        free(p);
    }
}

NOINLINE static void load_table(int count)
{
    for (int i = 0; i < count; i++) {
        held[nheld++] = malloc(40000);
        sink = (uintptr_t)held[nheld - 1];
        note(2, "load_table", 40000, 1);
    }
}

/* 40000 bytes: sampled with probability 1 - exp(-40000 / 4096) > 0.9999 at the test's interval,
 * so (almost) every chain is seen from its first allocation on and is start_buffer's. */
NOINLINE static void *start_buffer(void)
{
    void *p = malloc(40000);
    sink = (uintptr_t)p;
    return p;
}

/* realloc moves each block into a bigger one that stays live: one long-lived allocation, in use
 * at its first site (start_buffer) with its latest size; allocated, each block at its own call:
 * 40000 bytes at start_buffer, 50000 at grow_buffers (as peers count it). */
NOINLINE static void grow_buffers(int count)
{
    for (int i = 0; i < count; i++) {
        void *p = realloc(start_buffer(), 50000);
        sink = (uintptr_t)p;
        held[nheld++] = p;
        note(3, "start_buffer", 40000, 0);
        truth[3].in++;
        truth[3].ib += 50000;
        note(4, "grow_buffers", 50000, 0);
    }
}

int main(int argc, char **argv)
{
    int churn = argc == 3 ? atoi(argv[2]) : 20000;
    if ((argc != 2 && argc != 3) || churn <= 0) {
        fprintf(stderr, "usage: hosted_app TRUTH.txt [CHURN]\n");
        return 2;
    }
    make_list(30000);
    churn_buffers(churn);
    load_table(300);
    grow_buffers(200);
    FILE *f = fopen(argv[1], "w");
    if (!f)
        return 1;
    for (int i = 0; i < 5; i++)
        fprintf(f, "site %s - %lu %lu %lu %lu\n", truth[i].name, truth[i].an, truth[i].ab,
                truth[i].in, truth[i].ib);
    fclose(f);
    return 0;
}
