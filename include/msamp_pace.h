/*
 * A link's pace: bytes credited at a fixed rate by a clock, taken by writes that never wait for
 * them (docs/ADAPTIVE.md "The link"). Used by the core for MSAMP_CFG_LINK_BYTES_PER_S (the
 * budget of a link shared with logs) and by the UART transports for MSAMP_UART_BAUD (a link paced
 * at baud / 10 bytes a second). Integer arithmetic, one 32-bit division a call.
 */
#ifndef MSAMP_PACE_H
#define MSAMP_PACE_H

#include <stdint.h>

struct msamp_pace {
    uint32_t at;     /* the clock (low 32 bits) up to which credit was counted */
    uint32_t credit; /* bytes that may be written now, at most the burst */
    uint32_t started;
};

/* The credit now: what the clock earned since the last call at ticks_per_byte (at least 1), up to
 * burst bytes (what a link holds while nobody feeds it: a FIFO, a DMA buffer). The caller takes
 * the bytes it writes off p->credit. A gap longer than 2^32 ticks earns a full burst. */
static inline uint32_t msamp_pace_credit(struct msamp_pace *p, uint32_t now,
                                         uint32_t ticks_per_byte, uint32_t burst)
{
    if (ticks_per_byte == 0)
        ticks_per_byte = 1;
    if (!p->started) {
        p->started = 1;
        p->at = now;
        p->credit = burst;
    }
    uint32_t earned = (now - p->at) / ticks_per_byte;
    if (earned >= burst - p->credit) {
        p->credit = burst;
        p->at = now;
    } else {
        p->credit += earned;
        p->at += earned * ticks_per_byte;
    }
    return p->credit;
}

/* Ticks of a clock of hz per byte at bytes_per_s (at least 1), in 32-bit arithmetic. */
static inline uint32_t msamp_pace_ticks_per_byte(uint64_t hz, uint32_t bytes_per_s)
{
    uint32_t h = hz > UINT32_MAX ? UINT32_MAX : (uint32_t)hz;
    uint32_t t = bytes_per_s != 0 ? h / bytes_per_s : 1u;
    return t != 0 ? t : 1u;
}

#endif
