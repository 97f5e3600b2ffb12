/*
 * libFuzzer target of drain's model and pprof writer: the input is decoded, its records go
 * through the session model as in drain (a SESSION that starts a new session ends the current
 * one), and each session's profile, and one partial profile half way through the input, is built,
 * checked by prof_validate, reported (--top, folded stacks, the summary line, to /dev/null),
 * encoded and read back with the pprof reader that `drain merge` uses, which must accept it with
 * the same totals.
 *
 * Input: a first byte 0x00 means a raw stream (the whole input is fed to the decoder: deframing,
 * CRC, resync; the seeds are real streams). Any other first byte means records: the input is cut
 * into whole records (header byte, inline or varint length) that are packed into frames with valid
 * COBS and CRC, so mutations reach the record parsers and the model rather than dying at the CRC.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msamp_decode.h"
#include "msamp_wire.h"
#include "pprof/prof_codec.h"
#include "pprof/prof_file.h"
#include "pprof/profile.h"
#include "views/report.h"
#include "model/session.h"
#include "verdict/stamp.h"

struct run {
    struct msamp_dec *dec;
    struct session *cur;
    int nsessions;
};

static FILE *devnull;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_model: %s: %s\n", what, detail);
    abort();
}

/* Sums of each sample type's values, wide enough not to overflow. */
static void sums(const struct prof *p, __int128 *out, int *saturated)
{
    for (size_t t = 0; t < p->nvt; t++)
        out[t] = 0;
    for (size_t i = 0; i < p->nsample; i++) {
        const int64_t *v = &p->valpool[p->sample[i].val_off];
        for (size_t t = 0; t < p->nvt; t++) {
            out[t] += v[t];
            if (v[t] == INT64_MAX || v[t] == INT64_MIN)
                *saturated = 1;
        }
    }
}

static void check_profile(struct run *r, const char *kind)
{
    struct elf_set none = {NULL, 0, 0};
    struct built b;
    char err[1024];
    if (build_profile(r->cur, &none, kind, msamp_dec_stats(r->dec), BUILT_AGG, &b, err,
                      sizeof(err)) != 0)
        die("build_profile without --elf failed", err);
    if (prof_validate(&b.prof, err, sizeof(err)) != 0)
        die("drain built an invalid profile", err);
    int final = strcmp(kind, "final") == 0;
    report_top(devnull, r->cur, &b, 5, final);
    report_summary(devnull, r->cur, &b, msamp_dec_stats(r->dec), "fuzz.pb.gz");
    if (final && report_folded(&b, "/dev/null", err, sizeof(err)) != 0)
        die("report_folded", "cannot write /dev/null");
    if (final) {
        report_lifetimes(devnull, r->cur, &b, 5);
        struct built pk;
        if (build_peak_profile(r->cur, &none, msamp_dec_stats(r->dec), &pk, err, sizeof(err)) != 0)
            die("build_peak_profile without --elf failed", err);
        if (prof_validate(&pk.prof, err, sizeof(err)) != 0)
            die("drain built an invalid peak profile", err);
        built_free(&pk);
    }

    struct buf enc = {0};
    prof_encode(&b.prof, &enc);
    struct prof q;
    if (prof_read_mem(&q, enc.p, enc.len, err, sizeof(err)) != 0)
        die("the pprof reader refused drain's profile", err);
    if (q.nvt != b.prof.nvt || q.nvt != V_ALL || q.ncomment != b.prof.ncomment ||
        q.nmapping != b.prof.nmapping || q.nsample > b.prof.nsample)
        die("profile read back differs", "counts");
    __int128 a[V_ALL], c[V_ALL];
    int sat = 0;
    sums(&b.prof, a, &sat);
    sums(&q, c, &sat);
    if (!sat && memcmp(a, c, sizeof(a)) != 0)
        die("profile read back differs", "value totals");
    prof_free(&q);
    buf_free(&enc);
    built_free(&b);
}

static void on_record(void *arg, const struct msamp_record *rec)
{
    struct run *r = arg;
    if (rec->type == MSAMP_REC_SESSION && session_is_new(r->cur, rec)) {
        if (session_has_data(r->cur))
            check_profile(r, "final");
        session_free(r->cur);
        r->cur = session_new(++r->nsessions, msamp_dec_stats(r->dec));
        session_set_min_lifetime(r->cur, r->nsessions & 1 ? 0.001 : 0);
    }
    session_record(r->cur, rec);
}

/* COBS(seq body crc) 0x00 into out (room for MSAMP_WIRE_MAX_ENCODED bytes); its length. */
static size_t frame(uint8_t *out, uint8_t seq, const uint8_t *rec, size_t len)
{
    uint8_t body[MSAMP_WIRE_MAX_BODY];
    body[0] = seq;
    memcpy(body + 1, rec, len);
    uint32_t crc = msamp_crc32(0, body, len + 1);
    for (int i = 0; i < 4; i++)
        body[len + 1 + i] = (uint8_t)(crc >> (8 * i));
    size_t n = len + 5, o = 0, i = 0;
    for (;;) {
        size_t e = i;
        while (e < n && body[e] != 0 && e - i < 254)
            e++;
        out[o++] = (uint8_t)(e - i + 1);
        memcpy(out + o, body + i, e - i);
        o += e - i;
        if (e == n)
            break;
        i = (e - i == 254) ? e : e + 1;
    }
    out[o++] = 0;
    return o;
}

/* The length of the record at p (header, varint length, payload), at most left. */
static size_t record_len(const uint8_t *p, size_t left)
{
    size_t len = p[0] >> 4, hdr = 1;
    if (len == MSAMP_WIRE_LEN_EXTENDED) {
        uint64_t v = 0;
        for (unsigned shift = 0;; shift += 7) {
            if (hdr >= left || shift > 63)
                return left;
            uint8_t c = p[hdr++];
            v |= (uint64_t)(c & 0x7f) << shift;
            if (!(c & 0x80))
                break;
        }
        len = v > left ? left : (size_t)v;
    }
    return hdr + len > left ? left : hdr + len;
}

static void feed(struct run *r, const uint8_t *data, size_t *fed, size_t upto)
{
    if (upto > *fed)
        msamp_dec_feed(r->dec, data + *fed, upto - *fed);
    *fed = upto > *fed ? upto : *fed;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    struct run r = {0};
    r.dec = msamp_dec_new(on_record, &r);
    if (!r.dec)
        abort();
    r.cur = session_new(++r.nsessions, msamp_dec_stats(r.dec));
    const size_t room = MSAMP_WIRE_MAX_BODY - 1 - MSAMP_WIRE_CRC_SIZE;
    if (size == 0 || data[0] == 0) {
        /* A raw stream, fed in two parts with a partial profile between them. */
        size_t fed = 0;
        feed(&r, data, &fed, size / 2);
        if (session_has_data(r.cur))
            check_profile(&r, "partial 1");
        feed(&r, data, &fed, size);
    } else {
        uint8_t enc[MSAMP_WIRE_MAX_ENCODED];
        uint8_t seq = 0;
        size_t i = 0, start = 0;
        int partial_done = 0;
        while (i < size) {
            size_t n = record_len(data + i, size - i);
            if (n > room)
                n = room; /* a record too long for a frame: cut (the decoder calls it malformed) */
            if (i + n - start > room) {
                msamp_dec_feed(r.dec, enc, frame(enc, seq++, data + start, i - start));
                start = i;
                if (!partial_done && i >= size / 2) {
                    partial_done = 1;
                    if (session_has_data(r.cur))
                        check_profile(&r, "partial 1");
                }
            }
            i += n;
        }
        if (i > start)
            msamp_dec_feed(r.dec, enc, frame(enc, seq, data + start, i - start));
    }
    msamp_dec_finish(r.dec);
    if (session_has_data(r.cur) || r.nsessions == 1)
        check_profile(&r, "final");
    session_free(r.cur);
    msamp_dec_free(r.dec);
    return 0;
}
