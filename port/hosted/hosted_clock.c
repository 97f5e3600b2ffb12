/* The clock (CLOCK_MONOTONIC in nanoseconds) and the sampler's seed entropy. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "hosted.h"

uint64_t msamp_port_time(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t msamp_port_time_hz(void)
{
    return 1000000000u;
}

uint64_t msamp_port_entropy(void)
{
    uint64_t v = 0;

    if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v)
        v = msamp_port_time() ^ ((uint64_t)getpid() << 32);
    return v;
}
