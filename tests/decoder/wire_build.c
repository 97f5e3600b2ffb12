#include "wire_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msamp_decode.h"

void buf_put(struct buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *q = realloc(b->p, cap);
        if (q == NULL) {
            fprintf(stderr, "out of memory\n");
            abort();
        }
        b->p = q;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
}

void buf_u8(struct buf *b, uint8_t v)
{
    buf_put(b, &v, 1);
}

void buf_u32le(struct buf *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        buf_u8(b, (uint8_t)(v >> (8 * i)));
}

void buf_varint(struct buf *b, uint64_t v)
{
    while (v >= 0x80u) {
        buf_u8(b, (uint8_t)(v | 0x80u));
        v >>= 7;
    }
    buf_u8(b, (uint8_t)v);
}

void buf_svarint(struct buf *b, int64_t v)
{
    buf_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void buf_free(struct buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

void rec_put(struct buf *body, unsigned type, const struct buf *payload)
{
    if (payload->len <= 14) {
        buf_u8(body, (uint8_t)(type | payload->len << 4));
    } else {
        buf_u8(body, (uint8_t)(type | 0xF0u));
        buf_varint(body, payload->len);
    }
    buf_put(body, payload->p, payload->len);
}

void cobs_encode(struct buf *out, const uint8_t *in, size_t len)
{
    size_t i = 0;
    for (;;) {
        size_t e = i;
        while (e < len && in[e] != 0 && e - i < 254)
            e++;
        buf_u8(out, (uint8_t)(e - i + 1));
        buf_put(out, in + i, e - i);
        if (e == len)
            return;
        /* A short block stops at a zero the code implies; a full one implies none. */
        i = (e - i == 254) ? e : e + 1;
    }
}

void frame_put(struct buf *stream, uint8_t seq, const uint8_t *records, size_t len)
{
    struct buf body = { 0 };
    buf_u8(&body, seq);
    buf_put(&body, records, len);
    buf_u32le(&body, msamp_crc32(0, body.p, body.len));
    cobs_encode(stream, body.p, body.len);
    buf_u8(stream, 0);
    buf_free(&body);
}
