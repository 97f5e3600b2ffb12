/*
 * libFuzzer target of `drain merge`'s input side: the pprof reader (gzip or raw protobuf,
 * prof_read_mem) must refuse a malformed profile with a message and never crash; a profile it
 * accepts must pass prof_validate, merge with itself (merge_add twice) into a valid profile whose
 * every value total is twice the input's, and that merged profile, encoded, must be read back.
 *
 * Input: a first byte 'Z' means the rest is gzip-compressed here before it is read (so mutations
 * of the protobuf reach the reader through a valid gzip stream, multi-member when the input holds
 * the byte pair "ZZ": each part its own member); anything else is read as it is (the seeds are
 * drain's .pb.gz profiles and their uncompressed protobuf).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "verdict/merge.h"
#include "pprof/prof_codec.h"
#include "pprof/prof_file.h"

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_merge: %s: %s\n", what, detail);
    abort();
}

/* One gzip member of data[0..len) appended to out. */
static void gzip_member(struct buf *out, const uint8_t *data, size_t len)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    size_t bound = deflateBound(&z, (uLong)len) + 32;
    GROW(out->p, out->cap, out->len + bound);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)len;
    z.next_out = out->p + out->len;
    z.avail_out = (uInt)bound;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END)
        abort();
    out->len += bound - z.avail_out;
    deflateEnd(&z);
}

static void totals(const struct prof *p, __int128 *out, int *sat)
{
    for (size_t t = 0; t < p->nvt; t++)
        out[t] = 0;
    for (size_t i = 0; i < p->nsample; i++)
        for (size_t t = 0; t < p->nvt; t++) {
            int64_t v = p->valpool[p->sample[i].val_off + t];
            out[t] += v;
            *sat |= v == INT64_MAX || v == INT64_MIN;
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct buf gz = {0};
    if (size > 0 && data[0] == 'Z') {
        size_t start = 1;
        for (size_t i = 1; i + 1 < size; i++) {
            if (data[i] == 'Z' && data[i + 1] == 'Z') {
                gzip_member(&gz, data + start, i - start);
                start = i + 2;
                i++;
            }
        }
        gzip_member(&gz, data + start, size - start);
        data = gz.p;
        size = gz.len;
    }
    struct prof in;
    char err[512];
    if (prof_read_mem(&in, data, size, err, sizeof(err)) != 0) {
        if (err[0] == 0)
            die("refused without a message", "");
        buf_free(&gz);
        return 0;
    }
    if (prof_validate(&in, err, sizeof(err)) != 0)
        die("the reader accepted an invalid profile", err);

    struct merger mg;
    merge_init(&mg);
    if (merge_add(&mg, &in, err, sizeof(err)) != 0 || merge_add(&mg, &in, err, sizeof(err)) != 0)
        die("merge of a valid profile with itself failed", err);
    merge_finish(&mg);
    if (prof_validate(&mg.out, err, sizeof(err)) != 0)
        die("merge made an invalid profile", err);
    if (mg.out.nvt > PROF_MAX_TYPES)
        die("too many types", "");
    __int128 *a = calloc(in.nvt, sizeof(*a)), *m = calloc(in.nvt, sizeof(*m));
    if (!a || !m)
        abort();
    int sat = 0;
    totals(&in, a, &sat);
    totals(&mg.out, m, &sat);
    for (size_t t = 0; t < in.nvt && !sat; t++)
        if (m[t] != 2 * a[t])
            die("merged totals are not twice the input's", "");
    free(a);
    free(m);

    struct buf enc = {0};
    prof_encode(&mg.out, &enc);
    struct prof q;
    if (prof_read_mem(&q, enc.p, enc.len, err, sizeof(err)) != 0)
        die("the merged profile cannot be read back", err);
    if (q.nvt != mg.out.nvt || q.nsample != mg.out.nsample)
        die("the merged profile read back differs", "");
    prof_free(&q);
    buf_free(&enc);
    merge_free(&mg);
    prof_free(&in);
    buf_free(&gz);
    return 0;
}
