/*
 * unframe STREAM OUT: writes the records of STREAM's good frames (COBS undone, CRC checked, seq and
 * CRC removed), concatenated: a seed of the model fuzzer's record mode, which packs records into
 * frames again. Exit 1 when the stream holds no good frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msamp_decode.h"
#include "msamp_wire.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: unframe STREAM OUT\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb"), *out = fopen(argv[2], "wb");
    if (!in || !out) {
        perror("unframe");
        return 1;
    }
    static uint8_t enc[MSAMP_WIRE_MAX_ENCODED + 1], body[MSAMP_WIRE_MAX_BODY];
    size_t n = 0, good = 0;
    int c;
    while ((c = getc(in)) != EOF) {
        if (c != 0) {
            if (n < sizeof(enc))
                enc[n] = (uint8_t)c;
            n++;
            continue;
        }
        long len = n <= MSAMP_WIRE_MAX_ENCODED ? msamp_cobs_decode(enc, n, body, sizeof(body)) : -1;
        n = 0;
        if (len < 1 + (long)MSAMP_WIRE_CRC_SIZE)
            continue;
        size_t m = (size_t)len - MSAMP_WIRE_CRC_SIZE;
        uint32_t crc = (uint32_t)body[m] | (uint32_t)body[m + 1] << 8 |
                       (uint32_t)body[m + 2] << 16 | (uint32_t)body[m + 3] << 24;
        if (msamp_crc32(0, body, m) != crc)
            continue;
        fwrite(body + 1, 1, m - 1, out);
        good++;
    }
    fclose(in);
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 1;
    }
    if (!good) {
        fprintf(stderr, "unframe: %s: no good frame\n", argv[1]);
        return 1;
    }
    return 0;
}
