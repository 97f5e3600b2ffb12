/* The settings, from the environment when the program starts (docs/HOSTED.md):
 *   MSAMP_OUTPUT    path (%p pid, %e executable name, %t seconds since the epoch, %% a %), or
 *                   tcp:A.B.C.D:PORT; default msamp.%e.%p.bin in the working directory
 *   MSAMP_INTERVAL  mean sampling interval in bytes (default MSAMP_CFG_DEFAULT_INTERVAL)
 *   MSAMP_DISABLE=1 no profiling, no output
 *   MSAMP_FLUSH     thread (default: a writer thread polls every 10 ms) or inline (the allocating
 *                   threads poll once the ring is half full; no extra thread)
 *   MSAMP_SEED      fixed seed for repeatable sampling decisions
 * and the port's word to the user about them, on stderr. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hosted.h"

void msamp_hosted_say(const char *fmt, const char *a, const char *b)
{
    char line[512];
    int n = snprintf(line, sizeof line, fmt, a, b);

    if (n > 0)
        (void)!write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* A decimal in 1..UINT32_MAX; 0 when absent or invalid (after saying so). */
static uint32_t env_u32(const char *name)
{
    const char *v = getenv(name);
    char *end;
    unsigned long long x;

    if (v == NULL || v[0] == '\0')
        return 0;
    errno = 0;
    x = strtoull(v, &end, 10);
    if (errno != 0 || *end != '\0' || v[0] == '-' || x == 0 || x > UINT32_MAX) {
        msamp_hosted_say("msamp: ignoring %s=%s (expected a number of bytes, 1..4294967295)\n",
                         name, v);
        return 0;
    }
    return (uint32_t)x;
}

int msamp_hosted_settings(struct msamp_hosted_settings *s)
{
    const char *disable = getenv("MSAMP_DISABLE");
    const char *output = getenv("MSAMP_OUTPUT");
    const char *flush = getenv("MSAMP_FLUSH");
    const char *seed = getenv("MSAMP_SEED");

    memset(s, 0, sizeof *s);
    if (disable != NULL && strcmp(disable, "0") != 0 && disable[0] != '\0')
        return 0;
    if (flush != NULL && strcmp(flush, "inline") == 0)
        s->flush_inline = 1;
    else if (flush != NULL && flush[0] != '\0' && strcmp(flush, "thread") != 0)
        msamp_hosted_say("msamp: ignoring MSAMP_FLUSH=%s (expected thread or inline)%s\n", flush,
                         "");
    s->cfg.interval = env_u32("MSAMP_INTERVAL");
    if (seed != NULL && seed[0] != '\0')
        s->cfg.seed = strtoull(seed, NULL, 0);
    s->output = output != NULL && output[0] != '\0' ? output : "msamp.%e.%p.bin";
    return 1;
}
