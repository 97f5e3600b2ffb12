/*
 * Host unit test of the RTT transport (port/transport/rtt.c, included below with small buffers:
 * MSAMP_RTT_UP_SIZE and MSAMP_RTT_DOWN_SIZE come from the make fragment). The test plays the
 * probe: it finds the control block by its id as a RAM scan would, reads the up-buffer through its
 * descriptor and advances RdOff, writes the down-buffer and advances WrOff.
 *   layout      the id, counts and descriptors where SEGGER's layout puts them; nothing before init
 *   stream      thousands of writes of random sizes against a probe that reads random amounts at
 *               random moments (offsets caught mid-buffer, at the end, wrapped): the bytes the
 *               probe reads are the bytes written, in order; write returns what fitted
 *   full        a full buffer takes nothing (returns 0) until the probe reads
 *   scribble    a probe that writes a RdOff (or a down WrOff) outside the buffer: nothing is taken
 *               or read, no byte is written outside the buffers (ASan), and a sane offset resumes
 *   down        the down-buffer across its wrap, partial reads, an empty buffer
 *   block       (MSAMP_RTT_BLOCK=1 build) a probe thread reading concurrently: every byte arrives,
 *               write returns the whole length, flush returns once the probe read everything
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../port/transport/rtt.c"

static int failures;
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #c);                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* The probe's view: the block found by scanning "RAM" (the block and its surroundings) for the
 * id, as OpenOCD and drain do, then the descriptors of channel ch read from the raw bytes. */
static struct msamp_rtt_cb *scan(void)
{
    const char *base = (const char *)&_SEGGER_RTT;
    for (size_t off = 0; off + 16 <= sizeof(_SEGGER_RTT); off++)
        if (memcmp(base + off, "SEGGER RTT\0\0\0\0\0\0", 16) == 0)
            return (struct msamp_rtt_cb *)(uintptr_t)(base + off);
    return NULL;
}

/* Reads what the up-buffer holds (at most max bytes) the way a probe does. */
static size_t probe_read(struct msamp_rtt_cb *cb, uint8_t *out, size_t max)
{
    volatile struct msamp_rtt_buffer *u = &cb->aUp[MSAMP_RTT_CHANNEL];
    unsigned size = u->SizeOfBuffer, wr = u->WrOff, rd = u->RdOff;
    size_t n = 0;
    while (rd != wr && n < max) {
        out[n++] = (uint8_t)u->pBuffer[rd];
        rd = rd + 1 == size ? 0 : rd + 1;
    }
    u->RdOff = rd;
    return n;
}

/* Writes into the down-buffer what fits, the way a probe does. */
static __attribute__((unused)) size_t probe_write(struct msamp_rtt_cb *cb, const uint8_t *in, size_t len)
{
    volatile struct msamp_rtt_buffer *d = &cb->aDown[MSAMP_RTT_CHANNEL];
    unsigned size = d->SizeOfBuffer, wr = d->WrOff, rd = d->RdOff;
    size_t n = 0;
    while (n < len) {
        unsigned next = wr + 1 == size ? 0 : wr + 1;
        if (next == rd)
            break;
        d->pBuffer[wr] = (char)in[n++];
        wr = next;
    }
    d->WrOff = wr;
    return n;
}

#if MSAMP_RTT_BLOCK
static volatile int probe_stop;
static uint8_t *probe_got;
static size_t probe_len;
static void *probe_thread(void *arg)
{
    struct msamp_rtt_cb *cb = arg;
    uint8_t tmp[64];
    while (!probe_stop) {
        size_t n = probe_read(cb, tmp, 1 + rnd(sizeof(tmp)));
        if (probe_len + n > (1u << 20))
            abort();
        memcpy(probe_got + probe_len, tmp, n);
        probe_len += n;
        if (n == 0)
            sched_yield();
    }
    return NULL;
}
#endif

int main(void)
{
    uint8_t data[8192], got[1 << 16];
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)rnd(256);

    /* layout */
    CHECK(scan() == NULL);
    CHECK(msamp_transport_write(data, 4) < 0);
    CHECK(msamp_transport_init() == 0);
    CHECK(msamp_transport_init() == 0);
    struct msamp_rtt_cb *cb = scan();
    CHECK(cb == &_SEGGER_RTT);
    if (!cb)
        return 1;
    CHECK(offsetof(struct msamp_rtt_cb, MaxNumUpBuffers) == 16);
    CHECK(offsetof(struct msamp_rtt_cb, aUp) == 24);
    CHECK(sizeof(struct msamp_rtt_buffer) == 2 * sizeof(void *) + 16);
    CHECK(cb->MaxNumUpBuffers == MSAMP_RTT_CHANNEL + 1 && cb->MaxNumDownBuffers == MSAMP_RTT_CHANNEL + 1);
    volatile struct msamp_rtt_buffer *u = &cb->aUp[MSAMP_RTT_CHANNEL];
    CHECK(strcmp(u->sName, "msamp") == 0);
    CHECK(u->SizeOfBuffer == MSAMP_RTT_UP_SIZE && u->WrOff == 0 && u->RdOff == 0);
    CHECK((void *)u->pBuffer == (void *)up_buf);
    CHECK(cb->aDown[MSAMP_RTT_CHANNEL].SizeOfBuffer == MSAMP_RTT_DOWN_SIZE);
    if (MSAMP_RTT_CHANNEL == 1) {
        CHECK(strcmp(cb->aUp[0].sName, "Terminal") == 0 && cb->aUp[0].SizeOfBuffer == 0);
        CHECK(cb->aUp[0].pBuffer == NULL);
    }
    CHECK(strcmp(msamp_transport_name(), "rtt") == 0);

#if !MSAMP_RTT_BLOCK
    /* full */
    CHECK(msamp_transport_write(data, 1000) == MSAMP_RTT_UP_SIZE - 1);
    CHECK(u->WrOff == MSAMP_RTT_UP_SIZE - 1);
    CHECK(msamp_transport_write(data, 5) == 0);
    CHECK(msamp_transport_flush() == 0);
    size_t n = probe_read(cb, got, 10);
    CHECK(n == 10 && memcmp(got, data, 10) == 0);
    CHECK(msamp_transport_write(data + 500, 20) == 10); /* wraps: 1 at the end, 9 at the start */
    CHECK(u->WrOff == 9);
    n = probe_read(cb, got, sizeof(got));
    CHECK(n == MSAMP_RTT_UP_SIZE - 1);
    CHECK(memcmp(got, data + 10, MSAMP_RTT_UP_SIZE - 11) == 0);
    CHECK(memcmp(got + MSAMP_RTT_UP_SIZE - 11, data + 500, 10) == 0);
    CHECK(u->RdOff == u->WrOff);

    /* stream: random writes against a probe reading random amounts */
    size_t sent = 0, recvd = 0;
    static uint8_t in[1 << 20], out[1 << 20];
    for (size_t i = 0; i < sizeof(in); i++)
        in[i] = (uint8_t)rnd(256);
    unsigned seen_wrap = 0, seen_full = 0;
    while (recvd < sizeof(in) / 4) {
        if (sent < sizeof(in) / 4 && rnd(3) != 0) {
            size_t want = 1 + rnd(3 * MSAMP_RTT_UP_SIZE / 2);
            if (want > sizeof(in) / 4 - sent)
                want = sizeof(in) / 4 - sent;
            unsigned before = up_wr;
            int w = msamp_transport_write(in + sent, want);
            CHECK(w >= 0 && (size_t)w <= want);
            if (w == 0)
                seen_full++;
            if (w > 0 && up_wr < before)
                seen_wrap++;
            sent += (size_t)w;
        } else {
            recvd += probe_read(cb, out + recvd, 1 + rnd(MSAMP_RTT_UP_SIZE));
        }
        CHECK(recvd <= sent);
        if (failures)
            return 1;
    }
    CHECK(sent == recvd && memcmp(in, out, recvd) == 0);
    CHECK(seen_wrap > 100 && seen_full > 10);
    printf("stream: %zu bytes through a %d-byte buffer, %u wraps, %u writes on a full buffer\n",
           recvd, MSAMP_RTT_UP_SIZE, seen_wrap, seen_full);

    /* scribble: the probe writes an absurd RdOff */
    unsigned good = u->RdOff;
    u->RdOff = 0xfffffff0u;
    CHECK(msamp_transport_write(data, 8) == 0);
    CHECK(u->WrOff == good);
    u->RdOff = good;
    CHECK(msamp_transport_write(data, 8) == 8);
    CHECK(probe_read(cb, got, 100) == 8 && memcmp(got, data, 8) == 0);

    /* down */
    uint8_t cmd[64];
    CHECK(msamp_transport_read(cmd, sizeof(cmd)) == 0);
    size_t dsent = 0, drecv = 0;
    for (int round = 0; round < 2000; round++) {
        if (rnd(2))
            dsent += probe_write(cb, in + dsent, 1 + rnd(MSAMP_RTT_DOWN_SIZE));
        else {
            int r = msamp_transport_read(out + drecv, 1 + rnd(MSAMP_RTT_DOWN_SIZE));
            CHECK(r >= 0);
            drecv += (size_t)(r > 0 ? r : 0);
        }
    }
    int r;
    while ((r = msamp_transport_read(out + drecv, 7)) > 0)
        drecv += (size_t)r;
    CHECK(dsent == drecv && dsent > 1000 && memcmp(in, out, drecv) == 0);
    printf("down: %zu bytes through a %d-byte buffer\n", drecv, MSAMP_RTT_DOWN_SIZE);
    volatile struct msamp_rtt_buffer *d = &cb->aDown[MSAMP_RTT_CHANNEL];
    unsigned dgood = d->WrOff;
    CHECK(probe_write(cb, data, 3) == 3);
    d->WrOff = 0x7fffffffu;
    CHECK(msamp_transport_read(cmd, sizeof(cmd)) == 0);
    d->WrOff = (dgood + 3) % MSAMP_RTT_DOWN_SIZE;
    CHECK(msamp_transport_read(cmd, 2) == 2 && memcmp(cmd, data, 2) == 0);
    CHECK(msamp_transport_read(cmd, 2) == 1 && cmd[0] == data[2]);
#else
    /* block: a probe thread reads while write waits for room */
    probe_got = malloc(1u << 20);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, probe_thread, cb) == 0);
    static uint8_t in[200000];
    for (size_t i = 0; i < sizeof(in); i++)
        in[i] = (uint8_t)rnd(256);
    for (size_t sent = 0; sent < sizeof(in);) {
        size_t want = 1 + rnd(4 * MSAMP_RTT_UP_SIZE);
        if (want > sizeof(in) - sent)
            want = sizeof(in) - sent;
        CHECK(msamp_transport_write(in + sent, want) == (int)want);
        sent += want;
    }
    CHECK(msamp_transport_flush() == 0);
    CHECK(u->RdOff == u->WrOff);
    probe_stop = 1;
    pthread_join(t, NULL);
    CHECK(probe_len == sizeof(in) && memcmp(probe_got, in, sizeof(in)) == 0);
    printf("block: %zu bytes through a %d-byte buffer with a concurrent probe\n", probe_len,
           MSAMP_RTT_UP_SIZE);
    free(probe_got);
#endif
    (void)got;
    if (failures) {
        fprintf(stderr, "test_rtt: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_rtt%s: ok\n", MSAMP_RTT_BLOCK ? " (block)" : "");
    return 0;
}
