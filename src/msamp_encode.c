/* Encoding primitives of wire format v1: varints, CRC-32, records, streaming COBS. */
#include "msamp_internal.h"

size_t msamp_put_varint(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80u) {
        out[n++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

size_t msamp_put_svarint(uint8_t *out, int64_t v)
{
    uint64_t zz = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    return msamp_put_varint(out, zz);
}

/* Nibble table: 64 bytes of constants instead of 1 KiB, about 2x the cost of a byte table. */
static const uint32_t crc_nibble[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
    0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
    0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu,
};

uint32_t msamp_crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ crc_nibble[crc & 0x0Fu];
        crc = (crc >> 4) ^ crc_nibble[crc & 0x0Fu];
    }
    return ~crc;
}

void msamp_rec_begin(struct msamp_rec *r, uint8_t *buf)
{
    r->b = buf;
    r->len = 0;
}

void msamp_rec_varint(struct msamp_rec *r, uint64_t v)
{
    r->len += msamp_put_varint(&r->b[3 + r->len], v);
}

void msamp_rec_svarint(struct msamp_rec *r, int64_t v)
{
    r->len += msamp_put_svarint(&r->b[3 + r->len], v);
}

void msamp_rec_bytes(struct msamp_rec *r, const void *p, size_t n)
{
    const uint8_t *s = p;
    for (size_t i = 0; i < n; i++)
        r->b[3 + r->len + i] = s[i];
    r->len += n;
}

const uint8_t *msamp_rec_end(struct msamp_rec *r, unsigned type)
{
    MSAMP_CFG_ASSERT(r->len <= MSAMP_MAX_RECORD - 3u);
    if (r->len <= MSAMP_WIRE_LEN_INLINE_MAX) {
        r->b[2] = (uint8_t)(type | (unsigned)(r->len << 4));
        r->size = 1 + r->len;
        return &r->b[2];
    }
    /* The largest record is below 16384 bytes: its length takes at most two varint bytes. */
    uint8_t len[MSAMP_WIRE_MAX_VARINT];
    size_t ln = msamp_put_varint(len, r->len);
    size_t start = 2 - ln;
    r->b[start] = (uint8_t)(type | (MSAMP_WIRE_LEN_EXTENDED << 4));
    for (size_t i = 0; i < ln; i++)
        r->b[start + 1 + i] = len[i];
    r->size = 1 + ln + r->len;
    return &r->b[start];
}

static void cobs_next_block(struct msamp_cobs *c)
{
    size_t e = c->pos;
    while (e < c->len && c->src[e] != 0 && e - c->pos < 254u)
        e++;
    c->end = e;
}

void msamp_cobs_start(struct msamp_cobs *c, const uint8_t *body, size_t len)
{
    c->src = body;
    c->len = len;
    c->pos = 0;
    c->end = 0;
    c->state = 0;
}

/* Blocks of up to 254 non-zero bytes, each led by a code byte (length + 1). A block that stops at
 * a zero implies that zero; a full block (code 0xFF) does not. A body ending in zero ends with an
 * empty block (code 1). The frame then ends with the 0x00 delimiter. */
size_t msamp_cobs_emit(struct msamp_cobs *c, uint8_t *out, size_t cap)
{
    size_t n = 0;
    while (n < cap && c->state != 3) {
        if (c->state == 0) {
            cobs_next_block(c);
            c->full = (uint8_t)(c->end - c->pos == 254u);
            out[n++] = (uint8_t)(c->end - c->pos + 1u);
            c->state = 1;
        } else if (c->state == 1) {
            if (c->pos < c->end) {
                out[n++] = c->src[c->pos++];
            } else if (c->pos < c->len) {
                if (!c->full)
                    c->pos++; /* the zero this block's code implies */
                c->state = 0;
            } else {
                c->state = 2;
            }
        } else {
            out[n++] = 0;
            c->state = 3;
        }
    }
    return n;
}
