/* libFuzzer target of the host decoder: arbitrary bytes must never crash it (ASan, UBSan), and
 * decoding is independent of how the input is chunked: the listing (with times) and the counters
 * of a whole feed equal those of a feed cut at points taken from the input itself.
 * Each input is decoded twice over: as a raw stream (deframing, resync), and as the records of
 * frames with valid COBS and CRC built around its 700-byte pieces (record parsing, which random
 * bytes would rarely reach through the CRC). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msamp_decode.h"
#include "wire_build.h"

struct digest {
    uint64_t hash;
    uint64_t lines;
};

static ssize_t digest_write(void *cookie, const char *buf, size_t size)
{
    struct digest *d = cookie;
    for (size_t i = 0; i < size; i++) {
        d->hash = (d->hash ^ (uint8_t)buf[i]) * 0x100000001B3u;
        d->lines += buf[i] == '\n';
    }
    return (ssize_t)size;
}

struct run {
    FILE *out;
    uint64_t events;
};

static void on_rec(void *arg, const struct msamp_record *rec)
{
    struct run *r = arg;
    r->events += 1 + (rec->type == MSAMP_DEC_FRAME && rec->u.frame.lost != 0);
    msamp_record_print_opt(r->out, rec, MSAMP_PRINT_TIME);
}

static void run(const uint8_t *data, size_t size, size_t chunk, struct digest *dg,
                struct msamp_dec_stats *st)
{
    memset(dg, 0, sizeof(*dg));
    dg->hash = 0xCBF29CE484222325u;
    cookie_io_functions_t io = { .write = digest_write };
    struct run r = { fopencookie(dg, "w", io), 0 };
    struct msamp_dec *d = msamp_dec_new(on_rec, &r);
    if (r.out == NULL || d == NULL)
        abort();
    for (size_t i = 0; i < size; i += chunk)
        msamp_dec_feed(d, data + i, size - i < chunk ? size - i : chunk);
    msamp_dec_finish(d);
    *st = *msamp_dec_stats(d);
    msamp_dec_free(d);
    fclose(r.out);
    /* One line per event or record: no field may print a raw newline. */
    if (dg->lines != r.events)
        abort();
}

static void check(const uint8_t *data, size_t size)
{
    struct digest whole, cut;
    struct msamp_dec_stats st_whole, st_cut;
    run(data, size, size ? size : 1, &whole, &st_whole);
    size_t chunk = size ? 1 + data[size / 2] % 17 : 1;
    run(data, size, chunk, &cut, &st_cut);
    if (whole.hash != cut.hash || memcmp(&st_whole, &st_cut, sizeof(st_whole)) != 0)
        abort();
    if (st_whole.bytes_in != size || st_whole.bytes_discarded > size ||
        st_whole.records < st_whole.records_unknown)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check(data, size);
    struct buf framed = { 0 };
    for (size_t i = 0, seq = 0; i < size; i += 700, seq++)
        frame_put(&framed, (uint8_t)seq, data + i, size - i < 700 ? size - i : 700);
    check(framed.p, framed.len);
    buf_free(&framed);
    return 0;
}
