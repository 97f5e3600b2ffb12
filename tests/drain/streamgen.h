/*
 * A test-side writer of the msamp wire format (docs/WIRE_FORMAT.md), written independently of the
 * device encoder so drain's tests cross-check both: records are packed into frames of at most
 * max_body bytes (seq, records, CRC-32), COBS-encoded and 0x00-terminated, into a FILE.
 * Header-only (static functions): included by gen.c and symprog.c.
 */
#ifndef DRAIN_TEST_STREAMGEN_H
#define DRAIN_TEST_STREAMGEN_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "msamp_wire.h"

struct sg {
    FILE *out;
    uint8_t body[MSAMP_WIRE_MAX_BODY];
    size_t len, max_body;
    uint8_t seq;
    uint8_t rec[MSAMP_WIRE_MAX_BODY];
    size_t rlen;
};

static uint32_t sg_crc(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
    }
    return ~c;
}

static void sg_init(struct sg *g, FILE *out, size_t max_body)
{
    memset(g, 0, sizeof(*g));
    g->out = out;
    g->max_body = max_body;
    g->len = 1;
}

static void sg_flush(struct sg *g)
{
    if (g->len <= 1)
        return;
    g->body[0] = g->seq++;
    uint32_t c = sg_crc(g->body, g->len);
    for (int i = 0; i < 4; i++)
        g->body[g->len++] = (uint8_t)(c >> (8 * i));
    /* COBS */
    uint8_t enc[MSAMP_WIRE_MAX_ENCODED];
    size_t o = 1, code_at = 0;
    uint8_t code = 1;
    for (size_t i = 0; i < g->len; i++) {
        if (g->body[i] == 0) {
            enc[code_at] = code;
            code_at = o++;
            code = 1;
        } else {
            enc[o++] = g->body[i];
            if (++code == 0xff) {
                enc[code_at] = code;
                code_at = o++;
                code = 1;
            }
        }
    }
    enc[code_at] = code;
    enc[o++] = 0;
    fwrite(enc, 1, o, g->out);
    g->len = 1;
}

static void sg_u8(struct sg *g, uint8_t v)
{
    g->rec[g->rlen++] = v;
}

static void sg_var(struct sg *g, uint64_t v)
{
    while (v >= 0x80) {
        sg_u8(g, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    sg_u8(g, (uint8_t)v);
}

static void sg_svar(struct sg *g, int64_t v)
{
    sg_var(g, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void sg_begin(struct sg *g)
{
    g->rlen = 0;
}

/* Ends the record of this type: into the current frame, or a new one when it does not fit. */
static void sg_end(struct sg *g, unsigned type)
{
    uint8_t hdr[1 + MSAMP_WIRE_MAX_VARINT];
    size_t h = 0;
    if (g->rlen <= MSAMP_WIRE_LEN_INLINE_MAX) {
        hdr[h++] = (uint8_t)(g->rlen << 4 | type);
    } else {
        hdr[h++] = (uint8_t)(MSAMP_WIRE_LEN_EXTENDED << 4 | type);
        uint64_t v = g->rlen;
        while (v >= 0x80) {
            hdr[h++] = (uint8_t)(v | 0x80);
            v >>= 7;
        }
        hdr[h++] = (uint8_t)v;
    }
    if (g->len + h + g->rlen + 4 > g->max_body)
        sg_flush(g);
    memcpy(g->body + g->len, hdr, h);
    memcpy(g->body + g->len + h, g->rec, g->rlen);
    g->len += h + g->rlen;
}

static void sg_session_flags(struct sg *g, uint8_t flags, uint32_t id, uint64_t resend,
                             uint8_t arch, uint8_t ptr, uint64_t interval, uint64_t live_capacity,
                             const uint8_t *bid, uint8_t bidlen)
{
    sg_begin(g);
    sg_u8(g, 1);
    sg_u8(g, flags);
    for (int i = 0; i < 4; i++)
        sg_u8(g, (uint8_t)(id >> (8 * i)));
    sg_var(g, resend);
    sg_u8(g, arch);
    sg_u8(g, ptr);
    sg_var(g, 10000);
    sg_var(g, interval);
    sg_var(g, live_capacity);
    sg_var(g, 1024);
    sg_var(g, 32);
    sg_u8(g, bidlen);
    for (int i = 0; i < bidlen; i++)
        sg_u8(g, bid[i]);
    sg_end(g, MSAMP_REC_SESSION);
}

static void sg_stack(struct sg *g, uint64_t id, const uint64_t *fr, uint32_t depth)
{
    sg_begin(g);
    sg_var(g, id);
    sg_var(g, depth);
    sg_var(g, fr[0]);
    for (uint32_t i = 1; i < depth; i++)
        sg_svar(g, (int64_t)(fr[i] - fr[i - 1]));
    sg_end(g, MSAMP_REC_STACK);
}

static void sg_rec(struct sg *g, unsigned type, int n, const uint64_t *v)
{
    sg_begin(g);
    for (int i = 0; i < n; i++)
        sg_var(g, v[i]);
    sg_end(g, type);
}

#define SG(g, type, ...)                                                                           \
    do {                                                                                           \
        const uint64_t v_[] = {__VA_ARGS__};                                                       \
        sg_rec((g), (type), (int)(sizeof(v_) / sizeof(v_[0])), v_);                                \
    } while (0)

static void sg_mapping(struct sg *g, uint64_t start, uint64_t limit, uint64_t off,
                       const uint8_t *bid, uint8_t bidlen, const char *path)
{
    sg_begin(g);
    sg_var(g, start);
    sg_var(g, limit);
    sg_var(g, off);
    sg_u8(g, bidlen);
    for (int i = 0; i < bidlen; i++)
        sg_u8(g, bid[i]);
    size_t pl = strlen(path);
    sg_var(g, pl);
    for (size_t i = 0; i < pl; i++)
        sg_u8(g, (uint8_t)path[i]);
    sg_end(g, MSAMP_REC_MAPPING);
}

static void sg_mark(struct sg *g, const char *text)
{
    sg_begin(g);
    for (const char *c = text; *c; c++)
        sg_u8(g, (uint8_t)*c);
    sg_end(g, MSAMP_REC_MARK);
}

#endif
