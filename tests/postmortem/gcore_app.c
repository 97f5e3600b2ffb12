/* A hosted program for the post-mortem test of a gdb core (t_gcore.sh): it allocates from a few
 * sites, keeps some of the blocks and frees the others, sends its stream (msamp_flush), stops itself (SIGSTOP) for the test to take its core with gcore, and once
 * continued returns without allocating or freeing again: the live set of the core and of the
 * stream's end is the same. No stdio (its buffers would be allocations of their own). No realloc
 * chain: the stream counts a chain's in-use at its first site, the block's slot holds the stack of
 * its latest call (docs/POSTMORTEM.md). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "msamp.h"

#define KEEP 4096
static void *kept[KEEP];
static size_t nkept;

static void keep(void *p)
{
    if (!p)
        _exit(3);
    memset(p, 1, 1);
    if (nkept < KEEP)
        kept[nkept++] = p;
}

__attribute__((noinline)) static void small_blocks(int n)
{
    for (int i = 0; i < n; i++) {
        void *p = malloc(48);
        if (i % 3 == 0)
            free(p);
        else
            keep(p);
    }
}

__attribute__((noinline)) static void large_blocks(int n)
{
    for (int i = 0; i < n; i++)
        keep(malloc(20000 + (size_t)i * 16));
}

__attribute__((noinline)) static void zeroed_blocks(int n)
{
    for (int i = 0; i < n; i++)
        keep(calloc(40, 25));
}

__attribute__((noinline)) static void depth3(int n)
{
    for (int i = 0; i < n; i++)
        keep(malloc(6000));
}
__attribute__((noinline)) static void depth2(int n)
{
    depth3(n);
}
__attribute__((noinline)) static void depth1(int n)
{
    depth2(n);
}

int main(void)
{
    small_blocks(1500);
    large_blocks(300);
    zeroed_blocks(400);
    depth1(300);
    if (msamp_flush() < 0)
        _exit(4);
    /* Any process may attach (gcore is not our parent: Yama's ptrace_scope 1 would refuse it). */
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    raise(SIGSTOP);
    return nkept == 0;
}
