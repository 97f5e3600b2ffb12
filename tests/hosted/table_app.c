/* The live table at low load (tests/hosted/table.sh, tests/postmortem/t_gcore.sh; issue 36): run
 * with MSAMP_INTERVAL=1, every allocation is sampled. 20 000 short-lived blocks of 1000 B (each
 * freed at once), then 10 000 blocks of 1000 B and 100 of 64 KiB kept to the end: 10 100 live
 * blocks, 15 % of the default 65536 live slots, at the addresses glibc hands out in a row (1008 B
 * and 65552 B apart). None may be refused: in use, the 1000 B site is exactly 10 000 000 bytes and
 * the 64 KiB one 6 553 600, in the stream and in a core. With the argument "stop" the program
 * flushes its stream and stops itself (SIGSTOP) for gcore, then returns once continued, without
 * allocating or freeing again. No stdio (its buffers would be allocations of their own). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "msamp.h"

#define SMALL 10000
#define LARGE 100
static void *kept[SMALL + LARGE];
static size_t nkept;

static void keep(void *p)
{
    if (!p)
        _exit(3);
    memset(p, 1, 1);
    kept[nkept++] = p;
}

__attribute__((noinline)) static void short_lived(int n)
{
    for (int i = 0; i < n; i++) {
        void *p = malloc(1000);
        if (!p)
            _exit(3);
        memset(p, 1, 1);
        free(p);
    }
}

__attribute__((noinline)) static void live_small(int n)
{
    for (int i = 0; i < n; i++)
        keep(malloc(1000));
}

__attribute__((noinline)) static void live_large(int n)
{
    for (int i = 0; i < n; i++)
        keep(malloc(65536));
}

int main(int argc, char **argv)
{
    short_lived(20000);
    live_small(SMALL);
    live_large(LARGE);
    if (argc > 1 && strcmp(argv[1], "stop") == 0) {
        if (msamp_flush() < 0)
            _exit(4);
        /* Any process may attach (gcore is not our parent: Yama's ptrace_scope 1 would refuse it). */
        prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
        raise(SIGSTOP);
    }
    return nkept != SMALL + LARGE;
}
