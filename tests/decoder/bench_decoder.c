/* bench-decoder: decoding speed of the host decoder on real streams, against a baseline measured
 * in the same run: CRC-32 alone over the same bytes (work every decoder must do per byte).
 * Usage: bench_decoder STREAM...  (the streams are repeated up to about 64 MiB) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "msamp_decode.h"
#include "wire_build.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void count(void *arg, const struct msamp_record *rec)
{
    (void)rec;
    ++*(unsigned long *)arg;
}

int main(int argc, char **argv)
{
    struct buf one = { 0 };
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (f == NULL) {
            perror(argv[i]);
            return 2;
        }
        uint8_t chunk[65536];
        size_t n;
        while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
            buf_put(&one, chunk, n);
        fclose(f);
    }
    if (one.len == 0) {
        fprintf(stderr, "bench-decoder: no input\n");
        return 2;
    }
    struct buf all = { 0 };
    while (all.len < ((size_t)64 << 20))
        buf_put(&all, one.p, one.len);

    double best_dec = 1e9, best_crc = 1e9;
    unsigned long events = 0;
    volatile uint32_t sink = 0;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now();
        sink ^= msamp_crc32(0, all.p, all.len);
        double t1 = now();
        events = 0;
        struct msamp_dec *d = msamp_dec_new(count, &events);
        for (size_t i = 0; i < all.len; i += 4096)
            msamp_dec_feed(d, all.p + i, all.len - i < 4096 ? all.len - i : 4096);
        msamp_dec_finish(d);
        double t2 = now();
        const struct msamp_dec_stats *st = msamp_dec_stats(d);
        if (st->frames_ok == 0 || st->bytes_discarded * 100 > st->bytes_in) {
            fprintf(stderr, "bench-decoder: the input is not a stream (%llu frames, %llu of "
                            "%llu bytes discarded)\n", (unsigned long long)st->frames_ok,
                    (unsigned long long)st->bytes_discarded, (unsigned long long)st->bytes_in);
            return 1;
        }
        msamp_dec_free(d);
        if (t1 - t0 < best_crc)
            best_crc = t1 - t0;
        if (t2 - t1 < best_dec)
            best_dec = t2 - t1;
    }
    double mib = (double)all.len / (1 << 20);
    printf("bench-decoder: %.0f MiB, %lu records and frames: decode %.0f MiB/s (%.1f M records/s), "
           "CRC-32 alone %.0f MiB/s; decode/CRC time ratio %.2f\n",
           mib, events, mib / best_dec, (double)events / best_dec / 1e6, mib / best_crc,
           best_dec / best_crc);
    buf_free(&one);
    buf_free(&all);
    return 0;
}
