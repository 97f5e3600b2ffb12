/* The two checks of wire-format framing: CRC-32/IEEE and COBS decoding of one frame. */
#include <string.h>
#include <zlib.h>

#include "msamp_decode.h"

/* zlib's CRC-32 is the same CRC (IEEE 802.3, reflected) and several times faster than a small
 * table: the decoder's throughput hangs on it. */
uint32_t msamp_crc32(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0) {
        uInt n = len > 0x40000000u ? 0x40000000u : (uInt)len;
        crc = (uint32_t)crc32(crc, p, n);
        p += n;
        len -= n;
    }
    return crc;
}

/* zero_free: the caller knows in holds no 0x00 (it cut the frame at its delimiters). padded: in
 * and out have MSAMP_COBS_SLACK bytes past len and cap, so a short group is copied whole in one
 * move of that size (most groups are a few bytes: a call of memcpy each cost more than the copy). */
static inline long cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap,
                               int zero_free, int padded)
{
    size_t i = 0, o = 0;
    while (i < len) {
        unsigned code = in[i++];
        if (code == 0 || code - 1u > len - i)
            return -1;
        size_t n = code - 1u;
        if (n > cap - o || (!zero_free && memchr(in + i, 0, n) != NULL))
            return -1;
        if (padded && n <= MSAMP_COBS_SLACK)
            memcpy(out + o, in + i, MSAMP_COBS_SLACK);
        else
            memcpy(out + o, in + i, n);
        o += n;
        i += n;
        if (code != 0xFF && i < len) {
            if (o == cap)
                return -1;
            out[o++] = 0;
        }
    }
    return (long)o;
}

long msamp_cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
    return cobs_decode(in, len, out, cap, 0, 0);
}

long msamp_cobs_decode_zero_free(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
    return cobs_decode(in, len, out, cap, 1, 0);
}

long msamp_cobs_decode_padded(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
    return cobs_decode(in, len, out, cap, 1, 1);
}
