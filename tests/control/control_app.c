/*
 * The down-channel on the hosted port: a single-threaded program linked against the hosted
 * library that allocates until msamp has carried out COMMANDS commands and ignored BAD malformed
 * frames (or for 20 s: a loaded machine), then prints msamp's counters as
 *   control commands=N repeated=N bad=N refused=N interval=N enabled=N
 * usage: control_app COMMANDS BAD   (run with MSAMP_CONTROL=FIFO MSAMP_OUTPUT=... MSAMP_INTERVAL=R)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "msamp.h"

static volatile uintptr_t sink;

__attribute__((noinline)) static void *control_site(size_t n)
{
    void *p = malloc(n);
    sink = (uintptr_t)p;
    return p;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    uint32_t want = (uint32_t)atoi(argv[1]), want_bad = (uint32_t)atoi(argv[2]);
    struct msamp_stats st = {0};
    double t0 = now(), done_at = 0;
    void *keep[64] = {0};
    for (unsigned i = 0; now() - t0 < 20.0; i++) {
        free(keep[i % 64]);
        keep[i % 64] = control_site(256 + (i % 16) * 64);
        if (i % 256 == 0) {
            struct timespec pause = {0, 1000000};
            nanosleep(&pause, NULL);
            msamp_get_stats(&st);
            if (done_at == 0 && st.commands >= want && st.commands_bad >= want_bad)
                done_at = now();
            if (done_at != 0 && now() - done_at > 0.3) /* the last acks go out meanwhile */
                break;
        }
    }
    for (unsigned i = 0; i < 64; i++)
        free(keep[i]);
    msamp_get_stats(&st);
    printf("control commands=%u repeated=%u bad=%u refused=%u interval=%u enabled=%u\n",
           st.commands, st.commands_repeated, st.commands_bad, st.commands_refused, st.interval,
           st.enabled);
    return 0;
}
