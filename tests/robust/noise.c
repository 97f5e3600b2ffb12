/*
 * A noisy line for msamp streams: copies IN to OUT with byte errors at a given rate, as a UART
 * with noise, a flaky USB-serial bridge or a buffer replayed by a driver would make them.
 *   usage: noise MODE RATE SEED IN OUT
 *   MODE  flip    one to eight bits of the byte inverted
 *         drop    the byte lost
 *         insert  a random byte (zero included) inserted before it
 *         dup     a run of the last 1..64 bytes sent again (a repeated buffer)
 *         mix     each error one of the four, at random
 *   RATE  errors per input byte (e.g. 1e-3); SEED any integer (the same seed, the same damage).
 * Prints "errors=N flip=N drop=N insert=N dup=N" on stderr. Exit 0, or 2 on bad arguments or I/O.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Uniform in [0, 1). */
static double unit(void)
{
    return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0);
}

enum { FLIP, DROP, INSERT, DUP, MIX };

int main(int argc, char **argv)
{
    static const char *const modes[] = {"flip", "drop", "insert", "dup", "mix"};
    if (argc != 6) {
        fprintf(stderr, "usage: noise flip|drop|insert|dup|mix RATE SEED IN OUT\n");
        return 2;
    }
    int mode = -1;
    for (int i = 0; i < 5; i++)
        if (strcmp(argv[1], modes[i]) == 0)
            mode = i;
    char *end;
    errno = 0;
    double rate = strtod(argv[2], &end);
    if (mode < 0 || *end != '\0' || errno != 0 || !(rate >= 0.0 && rate <= 1.0)) {
        fprintf(stderr, "noise: bad mode '%s' or rate '%s' (0..1)\n", argv[1], argv[2]);
        return 2;
    }
    rng = strtoull(argv[3], NULL, 0) * 0x9E3779B97F4A7C15u + 1u;
    FILE *in = fopen(argv[4], "rb");
    if (in == NULL) {
        fprintf(stderr, "noise: %s: %s\n", argv[4], strerror(errno));
        return 2;
    }
    FILE *out = fopen(argv[5], "wb");
    if (out == NULL) {
        fprintf(stderr, "noise: %s: %s\n", argv[5], strerror(errno));
        fclose(in);
        return 2;
    }
    uint8_t hist[64];
    size_t nhist = 0;
    unsigned long long count[4] = {0, 0, 0, 0};
    int c;
    while ((c = getc(in)) != EOF) {
        uint8_t b = (uint8_t)c;
        int e = -1;
        if (unit() < rate)
            e = mode == MIX ? (int)(rnd() % 4u) : mode;
        if (e >= 0)
            count[e]++;
        if (e == DROP)
            continue;
        if (e == INSERT)
            putc((int)(rnd() & 0xFFu), out);
        if (e == FLIP) {
            uint8_t mask = (uint8_t)(rnd() & 0xFFu);
            b ^= mask != 0 ? mask : 0x01u;
        }
        if (e == DUP && nhist > 0) {
            size_t n = 1u + (size_t)(rnd() % nhist);
            fwrite(hist + nhist - n, 1, n, out);
        }
        putc(b, out);
        if (nhist == sizeof(hist)) {
            memmove(hist, hist + 1, sizeof(hist) - 1);
            nhist--;
        }
        hist[nhist++] = b;
    }
    int bad = ferror(in) || fclose(out) != 0;
    fclose(in);
    if (bad) {
        fprintf(stderr, "noise: I/O error\n");
        return 2;
    }
    fprintf(stderr, "errors=%llu flip=%llu drop=%llu insert=%llu dup=%llu\n",
            count[0] + count[1] + count[2] + count[3], count[0], count[1], count[2], count[3]);
    return 0;
}
