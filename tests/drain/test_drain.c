/*
 * Unit tests of drain's modules (built with ASan+UBSan): the pprof model and its protobuf
 * encoder/decoder, the session model (weights, slots, lost frees, snapshot reconciliation, late
 * join, unknown stacks, caps against hostile input), profile building and return-address
 * adjustment.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof_codec.h"
#include "prof_model.h"
#include "profile.h"
#include "session.h"

static int failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);              \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static struct msamp_record rec(int type)
{
    struct msamp_record r;
    memset(&r, 0, sizeof(r));
    r.type = type;
    return r;
}

static void feed_session(struct session *s, uint32_t id, uint64_t resend, uint64_t interval)
{
    struct msamp_record r = rec(MSAMP_REC_SESSION);
    r.u.session.version = 1;
    r.u.session.session_id = id;
    r.u.session.resend_seq = resend;
    r.u.session.arch = MSAMP_ARCH_AARCH64;
    r.u.session.ptr_size = 8;
    r.u.session.tick_hz = 1000;
    r.u.session.interval = interval;
    r.u.session.live_capacity = 64;
    session_record(s, &r);
}

static void feed_stack(struct session *s, uint64_t id, uint64_t leaf)
{
    uint64_t fr[2] = {leaf, 0x9000};
    struct msamp_record r = rec(MSAMP_REC_STACK);
    r.u.stack.id = id;
    r.u.stack.depth = 2;
    r.u.stack.frames = fr;
    session_record(s, &r);
}

static void feed_alloc(struct session *s, uint64_t slot1, uint64_t size, uint64_t stack)
{
    struct msamp_record r = rec(MSAMP_REC_ALLOC);
    r.u.alloc.slot1 = slot1;
    r.u.alloc.size = size;
    r.u.alloc.stack_id = stack;
    session_record(s, &r);
}

static void feed_free(struct session *s, uint64_t slot)
{
    struct msamp_record r = rec(MSAMP_REC_FREE);
    r.u.free.slot = slot;
    session_record(s, &r);
}

static void feed_live(struct session *s, uint64_t slot, uint64_t size, uint64_t stack)
{
    struct msamp_record r = rec(MSAMP_REC_LIVE);
    r.u.live.slot = slot;
    r.u.live.size = size;
    r.u.live.stack_id = stack;
    session_record(s, &r);
}

static void feed_snap(struct session *s, int type, uint64_t pass, uint64_t count)
{
    struct msamp_record r = rec(type);
    if (type == MSAMP_REC_SNAP_BEGIN)
        r.u.snap_begin.pass = pass;
    else {
        r.u.snap_end.pass = pass;
        r.u.snap_end.count = count;
    }
    session_record(s, &r);
}

static const struct site *site_for(const struct session *s, uint64_t stack)
{
    for (size_t i = 0; i < s->nsites; i++)
        if (s->sites[i].stack_id == stack)
            return &s->sites[i];
    return NULL;
}

static size_t live_count(const struct session *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nslots; i++)
        n += s->slots[i].live;
    return n;
}

static void test_weights(void)
{
    CHECK(session_weight(100, 1) == 1.0);
    CHECK(session_weight(100, 0) == 1.0);
    CHECK(fabs(session_weight(4096, 4096) - 1.0 / (1.0 - exp(-1.0))) < 1e-12);
    CHECK(session_weight(1u << 30, 4096) == 1.0);
    CHECK(session_weight(0, 4096) > 4000); /* size 0 counts as 1 byte: finite */
    CHECK(return_adjust(MSAMP_ARCH_X86_64) == 1 && return_adjust(MSAMP_ARCH_AARCH64) == 4 &&
          return_adjust(MSAMP_ARCH_MIPS64) == 8 && return_adjust(MSAMP_ARCH_ARM_THUMB) == 2 &&
          return_adjust(MSAMP_ARCH_RISCV64) == 2);
}

static void test_alloc_free(void)
{
    struct session *s = session_new(1, NULL);
    feed_session(s, 7, 0, 1);
    feed_stack(s, 1, 0x1000);
    feed_alloc(s, 1, 100, 1);
    feed_alloc(s, 2, 50, 1);
    feed_alloc(s, 0, 30, 1); /* untracked: allocated only */
    feed_free(s, 0);
    const struct site *st = site_for(s, 1);
    CHECK(st && st->alloc_n == 3 && st->alloc_b == 180 && st->free_n == 1 && st->free_b == 100);
    CHECK(live_count(s) == 1);
    /* Reusing a live slot means its FREE was lost. */
    feed_alloc(s, 2, 70, 1);
    CHECK(s->n.lost_frees == 1 && st->free_b == 150 && live_count(s) == 1);
    /* A FREE of an unknown slot, and slots beyond the declared capacity, are counted. */
    feed_free(s, 40);
    feed_alloc(s, 65, 1, 1);
    feed_free(s, 1u << 30);
    CHECK(s->n.unknown_frees == 1 && s->n.bad_slots == 2);
    session_free(s);
}

static void test_snapshot_reconcile(void)
{
    struct session *s = session_new(1, NULL);
    feed_session(s, 7, 0, 1);
    feed_stack(s, 1, 0x1000);
    feed_alloc(s, 1, 10, 1);
    feed_alloc(s, 2, 20, 1);
    feed_alloc(s, 3, 30, 1);
    /* Slot 1's FREE was lost: a full pass that omits it proves it was freed. */
    feed_snap(s, MSAMP_REC_SNAP_BEGIN, 5, 0);
    feed_live(s, 1, 20, 1);
    feed_live(s, 2, 30, 1);
    feed_snap(s, MSAMP_REC_SNAP_END, 5, 2);
    CHECK(s->n.snapshots_ok == 1 && s->n.lost_frees == 1 && live_count(s) == 2);
    /* A pass with a loss inside it proves nothing. */
    feed_snap(s, MSAMP_REC_SNAP_BEGIN, 6, 0);
    struct msamp_record loss = rec(MSAMP_DEC_LOSS);
    session_record(s, &loss);
    feed_snap(s, MSAMP_REC_SNAP_END, 6, 0);
    CHECK(s->n.snapshots_skipped == 1 && live_count(s) == 2);
    /* A count that does not match the LIVE records heard proves nothing either. */
    feed_snap(s, MSAMP_REC_SNAP_BEGIN, 7, 0);
    feed_snap(s, MSAMP_REC_SNAP_END, 7, 2);
    CHECK(s->n.snapshots_skipped == 2 && live_count(s) == 2);
    session_free(s);
}

static void test_late_join(void)
{
    struct session *s = session_new(1, NULL);
    /* Records before any header: unweighted, stack not yet known. */
    feed_alloc(s, 1, 64, 9);
    CHECK(s->n.unweighted == 1);
    feed_session(s, 7, 3, 4096);
    struct msamp_record hdr = rec(MSAMP_REC_SESSION);
    hdr.u.session.session_id = 7;
    hdr.u.session.resend_seq = 4;
    CHECK(!session_is_new(s, &hdr));
    hdr.u.session.resend_seq = 0;
    CHECK(session_is_new(s, &hdr));
    hdr.u.session.resend_seq = 5;
    hdr.u.session.session_id = 8;
    CHECK(session_is_new(s, &hdr));
    feed_snap(s, MSAMP_REC_SNAP_BEGIN, 1, 0);
    feed_stack(s, 9, 0x2000);
    feed_live(s, 0, 64, 9);
    feed_live(s, 1, 4096, 9); /* allocated before drain attached */
    feed_snap(s, MSAMP_REC_SNAP_END, 1, 2);
    CHECK(s->n.late_live == 1 && live_count(s) == 2);
    /* The in-use weight of the pre-header sample is corrected once the interval is known. */
    CHECK(fabs(s->slots[0].w - session_weight(64, 4096)) < 1e-9);
    const struct site *st = site_for(s, 9);
    CHECK(st && st->alloc_samples == 2);
    uint32_t depth = 0;
    CHECK(session_stack(s, 9, &depth) && depth == 2);
    CHECK(!session_stack(s, 0, &depth) && !session_stack(s, 10, &depth));
    session_free(s);
}

static void test_hostile(void)
{
    struct session *s = session_new(1, NULL);
    feed_session(s, 7, 0, 0); /* interval 0: treated as unknown, never divides by zero */
    /* Conflicting redefinition is counted and ignored; id 0 is never defined. */
    feed_stack(s, 3, 0x1000);
    feed_stack(s, 3, 0x2000);
    feed_stack(s, 0, 0x3000);
    CHECK(s->n.stack_conflicts == 1 && s->nstacks == 1);
    /* Huge slot indexes, sizes and stack ids cost nothing. */
    feed_alloc(s, UINT64_MAX, UINT64_MAX, UINT64_MAX);
    feed_live(s, UINT64_MAX - 1, 1, 1);
    CHECK(s->nslots <= 64 && s->n.bad_slots == 2);
    struct msamp_record m = rec(MSAMP_REC_MAPPING);
    m.u.mapping.start = 10;
    m.u.mapping.limit = 5; /* empty: ignored */
    session_record(s, &m);
    CHECK(s->nmaps == 0);
    session_free(s);
}

static void test_profile_roundtrip(void)
{
    struct session *s = session_new(1, NULL);
    feed_session(s, 0x1234, 0, 1);
    feed_stack(s, 1, 0x1004);
    feed_alloc(s, 1, 100, 1);
    feed_alloc(s, 2, 200, 1);
    feed_free(s, 0);
    feed_alloc(s, 3, 7, 0); /* unknown stack */
    struct elf_set none = {NULL, 0, 0};
    struct built b;
    char err[256];
    CHECK(build_profile(s, &none, "final", NULL, &b, err, sizeof(err)) == 0);
    struct prof *p = &b.prof;
    CHECK(p->nvt == V_COUNT && p->nsample == 2);
    CHECK(strcmp(p->str[p->default_sample_type], "inuse_space") == 0);
    CHECK(strcmp(p->str[p->period_type.type], "space") == 0 && p->period == 1);
    CHECK(p->nmapping == 1 && p->mapping[0].limit == UINT64_MAX);
    /* aarch64: return addresses move back 4 bytes into the call. */
    CHECK(p->location[p->locpool[p->sample[0].loc_off] - 1].address == 0x1000);
    const int64_t *v = &p->valpool[p->sample[0].val_off];
    CHECK(v[V_INUSE_N] == 1 && v[V_INUSE_B] == 200 && v[V_ALLOC_B] == 300 && v[V_FREE_B] == 100);
    CHECK(b.unknown_stack == 1);

    struct buf enc = {0};
    prof_encode(p, &enc);
    struct prof q;
    prof_init(&q);
    CHECK(prof_decode(&q, enc.p, enc.len, err, sizeof(err)) == 0);
    CHECK(q.nsample == p->nsample && q.nlocation == p->nlocation && q.nfunction == p->nfunction &&
          q.nmapping == 1 && q.ncomment == p->ncomment && q.period == p->period);
    CHECK(strcmp(q.str[q.default_sample_type], "inuse_space") == 0);
    struct buf enc2 = {0};
    prof_encode(&q, &enc2);
    CHECK(enc2.len == enc.len && memcmp(enc.p, enc2.p, enc.len) == 0);
    /* Every truncation of the encoding is rejected or decoded, never a crash. */
    for (size_t cut = 0; cut < enc.len; cut++) {
        struct prof t;
        prof_init(&t);
        (void)prof_decode(&t, enc.p, cut, err, sizeof(err));
        prof_free(&t);
    }
    /* Flipped bytes likewise. */
    for (size_t i = 0; i < enc.len; i++) {
        enc.p[i] ^= 0x5a;
        struct prof t;
        prof_init(&t);
        (void)prof_decode(&t, enc.p, enc.len, err, sizeof(err));
        prof_free(&t);
        enc.p[i] ^= 0x5a;
    }
    CHECK(prof_decode(&q, (const uint8_t *)"\x0a\x05", 2, err, sizeof(err)) == -1);
    buf_free(&enc);
    buf_free(&enc2);
    prof_free(&q);
    built_free(&b);
    session_free(s);
}

/* Random records of every type with hostile field values: the model never crashes, stays within
 * its caps, and still builds a profile. */
static void test_random_records(void)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    uint64_t frames[MSAMP_DEC_MAX_DEPTH];
    struct session *s = session_new(1, NULL);
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t big = (x >> 3) % 5 == 0 ? x : x % 300;
        struct msamp_record r = rec((int)(x % 16) - 3);
        r.ts = x >> 20;
        r.ts_valid = (int)(x & 1);
        switch (r.type) {
        case MSAMP_REC_SESSION:
            r.u.session.session_id = 7;
            r.u.session.resend_seq = 1 + (x & 3);
            r.u.session.interval = big;
            r.u.session.live_capacity = big;
            r.u.session.arch = (uint8_t)(x >> 8);
            r.u.session.ptr_size = (x >> 16) & 1 ? 4 : 8;
            r.u.session.build_id_len = (uint8_t)((x >> 24) % (MSAMP_DEC_MAX_BUILD_ID + 1));
            break;
        case MSAMP_REC_STACK:
            r.u.stack.id = big;
            r.u.stack.depth = 1 + (uint32_t)(x % MSAMP_DEC_MAX_DEPTH);
            for (uint32_t k = 0; k < r.u.stack.depth; k++)
                frames[k] = x * (k + 1);
            r.u.stack.frames = frames;
            break;
        case MSAMP_REC_MAPPING:
            r.u.mapping.start = x % 1000;
            r.u.mapping.limit = big;
            r.u.mapping.path = (const uint8_t *)"p";
            r.u.mapping.path_len = 1;
            break;
        case MSAMP_REC_MARK:
            r.u.mark.text = (const uint8_t *)"\x01mark\xff";
            r.u.mark.len = 6;
            break;
        default:
            /* The union's integer fields alias: fill them all. */
            r.u.realloc.old_slot = big;
            r.u.realloc.new_slot1 = x % 70;
            r.u.realloc.size = x >> 40;
            r.u.realloc.stack_id = x % 50;
            r.u.realloc.addr = x;
            break;
        }
        session_record(s, &r);
    }
    CHECK(s->nslots <= DRAIN_MAX_SLOTS && s->nstacks <= DRAIN_MAX_STACKS &&
          s->nframes <= DRAIN_MAX_FRAMES && s->nmaps <= DRAIN_MAX_MAPPINGS &&
          s->nmarks <= DRAIN_MAX_MARKS);
    struct elf_set none = {NULL, 0, 0};
    struct built b;
    char err[256];
    CHECK(build_profile(s, &none, "final", NULL, &b, err, sizeof(err)) == 0);
    struct buf enc = {0};
    prof_encode(&b.prof, &enc);
    struct prof q;
    prof_init(&q);
    CHECK(prof_decode(&q, enc.p, enc.len, err, sizeof(err)) == 0);
    prof_free(&q);
    buf_free(&enc);
    built_free(&b);
    session_free(s);
}

int main(void)
{
    test_weights();
    test_alloc_free();
    test_snapshot_reconcile();
    test_late_join();
    test_hostile();
    test_profile_roundtrip();
    test_random_records();
    if (failures) {
        fprintf(stderr, "test_drain: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_drain: all checks passed\n");
    return 0;
}
