/* The settings, from the environment when the program starts (docs/HOSTED.md):
 *   MSAMP_OUTPUT    path (%p pid, %e executable name, %t seconds since the epoch, %% a %), or
 *                   tcp:A.B.C.D:PORT; default msamp.%e.%p.bin in the working directory
 *   MSAMP_INTERVAL  mean sampling interval in bytes (default MSAMP_CFG_DEFAULT_INTERVAL)
 *   MSAMP_DISABLE=1 no profiling, no output, no thread
 *   MSAMP_FLUSH     unset (default): the allocating thread drains the ring while the program is
 *                   single-threaded (once it is half full or 10 ms after the last drain), and a
 *                   writer thread (every 10 ms) once the program has started a thread of its own;
 *                   thread: the writer thread from start-up; inline: the allocating threads
 *                   drain, never an extra thread
 *   MSAMP_SEED      fixed seed for repeatable sampling decisions
 *   MSAMP_INTERVAL_MIN, MSAMP_INTERVAL_MAX  bounds of the adaptive interval (default: the start
 *                   interval, MSAMP_CFG_INTERVAL_MAX); MSAMP_INTERVAL_PIN=1 no adaptation
 *   MSAMP_LIVE_CAPACITY, MSAMP_STACK_CAPACITY  slots of the live and stack tables (rounded up to
 *                   powers of two; default 65536 and 16384), mapped once at start-up
 *   MSAMP_EXIT_TIMEOUT_MS  the longest the exit flush waits for a slow or stalled consumer, in
 *                   milliseconds, 0..600000 (default 1000)
 *   MSAMP_DEVICE_ID the device id sent in the SESSION record (its first MSAMP_WIRE_MAX_DEVICE_ID
 *                   bytes; default none): drain's `device` label
 *   MSAMP_UNWIND    dwarf (default where built in): the sampled stacks by the code's DWARF call
 *                   frame information, through code without frame pointers; fp: frame chains only
 * and the port's word to the user about them, on stderr. The table capacities are read by
 * msamp_port_table_caps, below; their memory comes from mmap, never from the wrapped malloc. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hosted.h"
#include "msamp_wire.h"

void msamp_hosted_say(const char *fmt, const char *a, const char *b)
{
    char line[512];
    int n = snprintf(line, sizeof line, fmt, a, b);

    if (n > 0)
        (void)!write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* The environment variable `name` as a decimal in lo..hi (strtoull's: leading blanks and a '+'
 * taken; never a '-', nor, when digit_first, anything but a digit first): its value; dflt when it
 * is absent or empty, or not one (then said on stderr: `expected` names what it should be). */
static unsigned long long env_number(const char *name, unsigned long long lo, unsigned long long hi,
                                     int digit_first, unsigned long long dflt, const char *expected)
{
    const char *v = getenv(name);
    char *end;
    unsigned long long x;

    if (v == NULL || v[0] == '\0')
        return dflt;
    errno = 0;
    x = strtoull(v, &end, 10);
    if (errno != 0 || *end != '\0' || v[0] == '-' || (digit_first && (v[0] < '0' || v[0] > '9')) ||
        x < lo || x > hi) {
        char line[128];
        snprintf(line, sizeof line, "msamp: ignoring %%s=%%s (expected %s)\n", expected);
        msamp_hosted_say(line, name, v);
        return dflt;
    }
    return x;
}

/* A decimal in 1..UINT32_MAX; 0 when absent or invalid (after saying so). */
static uint32_t env_u32(const char *name)
{
    return (uint32_t)env_number(name, 1, UINT32_MAX, 0, 0, "a number of bytes, 1..4294967295");
}

/* MSAMP_EXIT_TIMEOUT_MS: 0..600000 milliseconds; the default when absent or invalid (said). */
static unsigned env_exit_ms(void)
{
    return (unsigned)env_number("MSAMP_EXIT_TIMEOUT_MS", 0, 600000, 1, 1000, "0..600000");
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
    s->flush = MSAMP_HOSTED_FLUSH_LAZY;
    if (flush != NULL && strcmp(flush, "inline") == 0)
        s->flush = MSAMP_HOSTED_FLUSH_INLINE;
    else if (flush != NULL && strcmp(flush, "thread") == 0)
        s->flush = MSAMP_HOSTED_FLUSH_THREAD;
    else if (flush != NULL && flush[0] != '\0')
        msamp_hosted_say("msamp: ignoring MSAMP_FLUSH=%s (expected thread or inline)%s\n", flush,
                         "");
    s->cfg.interval = env_u32("MSAMP_INTERVAL");
    s->cfg.interval_min = env_u32("MSAMP_INTERVAL_MIN");
    s->cfg.interval_max = env_u32("MSAMP_INTERVAL_MAX");
    const char *pin = getenv("MSAMP_INTERVAL_PIN");
    s->cfg.pin_interval = pin != NULL && pin[0] != '\0' && strcmp(pin, "0") != 0;
    if (seed != NULL && seed[0] != '\0')
        s->cfg.seed = strtoull(seed, NULL, 0);
    s->exit_timeout_ms = env_exit_ms();
    const char *unwind = getenv("MSAMP_UNWIND");
    if (unwind != NULL && strcmp(unwind, "fp") == 0)
        msamp_hosted_unwind = MSAMP_HOSTED_UNWIND_FP;
    else if (unwind != NULL && strcmp(unwind, "dwarf") == 0 && MSAMP_HOSTED_DWARF)
        msamp_hosted_unwind = MSAMP_HOSTED_UNWIND_DWARF;
    else if (unwind != NULL && unwind[0] != '\0')
        msamp_hosted_say("msamp: ignoring MSAMP_UNWIND=%s (expected %s)\n", unwind,
                         MSAMP_HOSTED_DWARF ? "dwarf or fp" : "fp: built without the DWARF walk");
    if (msamp_hosted_unwind == MSAMP_HOSTED_UNWIND_DWARF)
        msamp_hosted_walk_warm();
#if MSAMP_CFG_HEAP_STATS
    /* The heap walk's budget a call (docs/HEALTH.md), in ns as an int64_t at most. */
    msamp_hosted_walk_ns = env_number("MSAMP_HEAP_WALK_US", 0, INT64_MAX / 1000, 1,
                                      MSAMP_HOSTED_HEAP_WALK_US, "microseconds, 0..") * 1000u;
#endif
    /* Copied: the program may change its environment later. */
    static char device_id[MSAMP_WIRE_MAX_DEVICE_ID + 1];
    const char *id = getenv("MSAMP_DEVICE_ID");
    if (id != NULL && id[0] != '\0') {
        size_t n = strlen(id);
        if (n > MSAMP_WIRE_MAX_DEVICE_ID) {
            msamp_hosted_say("msamp: MSAMP_DEVICE_ID=%s is longer than 32 bytes: cut%s\n", id, "");
            _Static_assert(MSAMP_WIRE_MAX_DEVICE_ID == 32u, "the message above says 32");
            n = MSAMP_WIRE_MAX_DEVICE_ID;
        }
        memcpy(device_id, id, n);
        device_id[n] = '\0';
        s->cfg.device_id = device_id;
    }
    s->output = output != NULL && output[0] != '\0' ? output : "msamp.%e.%p.bin";
    return 1;
}

/* A capacity from the environment, rounded up to a power of two in [lo, hi]; dflt when absent. */
static uint32_t env_capacity(const char *name, uint32_t dflt, uint32_t lo, uint32_t hi)
{
    uint32_t v = env_u32(name), c = lo;

    if (v == 0)
        return dflt;
    if (v > hi) {
        msamp_hosted_say("msamp: %s=%s is above the largest table; using the largest\n", name,
                         getenv(name));
        return hi;
    }
    while (c < v)
        c <<= 1;
    return c;
}

void msamp_port_table_caps(uint32_t *live, uint32_t *stacks, uint32_t *frames)
{
    *live = env_capacity("MSAMP_LIVE_CAPACITY", MSAMP_HOSTED_LIVE_CAPACITY, 64u,
                         MSAMP_WIRE_MAX_SLOTS);
    *stacks = env_capacity("MSAMP_STACK_CAPACITY", MSAMP_HOSTED_STACK_CAPACITY, 64u, 1u << 16);
    *frames = *stacks * MSAMP_HOSTED_FRAMES_PER_STACK;
}

void *msamp_port_table_memory(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED) {
        msamp_hosted_say("msamp: no memory for the tables (mmap: %s)%s\n", strerror(errno), "");
        return NULL;
    }
    return p;
}
