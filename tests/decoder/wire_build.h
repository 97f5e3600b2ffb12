/* Test helpers: build wire-format streams (version 1 unless a test says) by hand (records,
 * frames, COBS), independently of the device encoder, so the decoder tests check the spec and
 * not one implementation of it. */
#ifndef MSAMP_TEST_WIRE_BUILD_H
#define MSAMP_TEST_WIRE_BUILD_H

#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer; aborts when out of memory. */
struct buf {
    uint8_t *p;
    size_t len, cap;
};

void buf_put(struct buf *b, const void *p, size_t n);
void buf_u8(struct buf *b, uint8_t v);
void buf_u32le(struct buf *b, uint32_t v);
void buf_varint(struct buf *b, uint64_t v);
void buf_svarint(struct buf *b, int64_t v);
void buf_free(struct buf *b);

/* Appends one record: header (inline length or 15 + varint length) and payload. */
void rec_put(struct buf *frame_body, unsigned type, const struct buf *payload);

/* COBS-encodes in[0..len) into out (no delimiter): blocks of up to 254 bytes, no trailing empty
 * block after a full one. */
void cobs_encode(struct buf *out, const uint8_t *in, size_t len);

/* Appends a whole frame: COBS(seq records crc) 0x00, where records are the bytes of `records`. */
void frame_put(struct buf *stream, uint8_t seq, const uint8_t *records, size_t len);

#endif
