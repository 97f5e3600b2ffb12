/* What the frame writer needs of a port, for the tests that run it alone (test_writer.c,
 * test_vectors.c): a transport that appends to `out` (taking 1..transport_max bytes a call when
 * transport_max is set, every byte otherwise) and a clock that stays at 0. Include once, after
 * check.h and msamp_internal.h. */
#ifndef MSAMP_WRITER_PORT_H
#define MSAMP_WRITER_PORT_H

#include <string.h>

static uint8_t out[1 << 20];
static size_t out_len;
static size_t transport_max; /* 0: any count */
static uint64_t transport_rng = 7;

int msamp_transport_write(const uint8_t *data, size_t len)
{
    size_t n = len;
    if (transport_max != 0) {
        size_t cap = 1 + (size_t)(msamp_rng_next(&transport_rng) % transport_max);
        n = len < cap ? len : cap;
    }
    if (n > sizeof out - out_len) {
        CHECK(!"the test's transport buffer is full");
        return -1;
    }
    memcpy(out + out_len, data, n);
    out_len += n;
    return (int)n;
}

uint64_t msamp_port_time(void)
{
    return 0;
}

#endif
