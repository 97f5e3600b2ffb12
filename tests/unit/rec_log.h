/* The records of a device stream, decoded by the host decoder into a flat log the core tests
 * (test_core.c, test_tiny.c) query, and the event script both start with. Include once, after
 * check.h, msamp_decode.h and fake_port.h. */
#ifndef MSAMP_REC_LOG_H
#define MSAMP_REC_LOG_H

#include <string.h>

#define MAXREC 100000
struct rec {
    int type;
    uint64_t a, b, c, d, ts;
    uint32_t depth;
    uint64_t frames[8];
};
static struct rec recs[MAXREC];
static int nrec;
static struct msamp_dec_stats dstats;

static void on_record(void *arg, const struct msamp_record *r)
{
    (void)arg;
    if (r->type < 0 || nrec >= MAXREC)
        return;
    struct rec *x = &recs[nrec++];
    memset(x, 0, sizeof *x);
    x->type = r->type;
    x->ts = r->ts;
    switch (r->type) {
    case MSAMP_REC_SESSION:
        x->a = r->u.session.resend_seq;
        x->b = r->u.session.interval;
        x->c = r->u.session.ptr_size;
        x->d = r->u.session.build_id_len;
        x->depth = r->u.session.device_id_len;
        break;
    case MSAMP_REC_STACK:
        x->a = r->u.stack.id;
        x->depth = r->u.stack.depth;
        for (uint32_t i = 0; i < r->u.stack.depth && i < 8; i++)
            x->frames[i] = r->u.stack.frames[i];
        break;
    case MSAMP_REC_ALLOC:
        x->a = r->u.alloc.slot1;
        x->b = r->u.alloc.size;
        x->c = r->u.alloc.stack_id;
        break;
    case MSAMP_REC_FREE:
        x->a = r->u.free.slot;
        x->b = r->u.free.moved;
        break;
    case MSAMP_REC_REALLOC:
        x->a = r->u.realloc.old_slot;
        x->b = r->u.realloc.new_slot1;
        x->c = r->u.realloc.size;
        x->d = r->u.realloc.stack_id;
        break;
    case MSAMP_REC_LIVE:
        x->a = r->u.live.slot;
        x->b = r->u.live.size;
        x->c = r->u.live.stack_id;
        break;
    case MSAMP_REC_SNAP_END:
        x->a = r->u.snap_end.pass;
        x->b = r->u.snap_end.count;
        break;
    case MSAMP_REC_DROPS:
        x->a = r->u.drops.ring_records;
        x->b = r->u.drops.ring_bytes;
        x->c = r->u.drops.reentrant;
        break;
    case MSAMP_REC_INTERVAL:
        x->a = r->u.interval.interval;
        break;
    case MSAMP_REC_MARK:
        x->a = r->u.mark.len;
        break;
    default:
        break;
    }
}

/* Decodes fake_out[from..] into recs. */
static void decode_from(size_t from)
{
    nrec = 0;
    struct msamp_dec *d = msamp_dec_new(on_record, NULL);
    msamp_dec_feed(d, fake_out + from, fake_out_len - from);
    msamp_dec_finish(d);
    dstats = *msamp_dec_stats(d);
    msamp_dec_free(d);
}

static int count(int type)
{
    int n = 0;
    for (int i = 0; i < nrec; i++)
        n += recs[i].type == type;
    return n;
}

static const struct rec *find(int type, int nth)
{
    for (int i = 0; i < nrec; i++)
        if (recs[i].type == type && nth-- == 0)
            return &recs[i];
    return NULL;
}

void *__wrap_malloc(size_t size);
void __wrap_free(void *p);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

/* Frames go out while time stands still (one sampled malloc+free and a poll each) until the
 * stream has grown by `bytes`: the identity is re-sent each MSAMP_CFG_RESEND_BYTES all the same, a
 * SESSION with a larger resend_seq followed by an absolute TIME. Returns the SNAP_BEGIN records
 * seen. */
static inline int check_identity_by_volume(size_t bytes)
{
    size_t mark = fake_out_len;
    while (fake_out_len - mark < bytes) {
        __wrap_free(__wrap_malloc(32));
        msamp_poll();
    }
    msamp_flush();
    decode_from(mark);
    CHECK_EQ(dstats.frames_bad, 0);
    CHECK_EQ(dstats.frames_lost, 0);
    int sessions = 0, passes = 0;
    uint64_t prev = 0;
    for (int i = 0; i < nrec; i++) {
        if (recs[i].type == MSAMP_REC_SNAP_BEGIN)
            passes++;
        if (recs[i].type != MSAMP_REC_SESSION)
            continue;
        sessions++;
        CHECK(recs[i].a > prev);
        prev = recs[i].a;
        /* A pass's SESSION is followed by DROPS and SNAP_BEGIN, which carries the time. */
        CHECK(i + 1 < nrec && (recs[i + 1].type == MSAMP_REC_TIME ||
                               recs[i + 1].type == MSAMP_REC_DROPS));
    }
#if MSAMP_CFG_RESEND_BYTES
    int due = (int)(dstats.bytes_in / MSAMP_CFG_RESEND_BYTES);
    CHECK(sessions >= due - 1 && sessions <= due + 1 + passes);
    /* The one stack of the loop is defined again after every 8th identity, and with every
     * MSAMP_CFG_STACK_RESEND_SAMPLES-th sample. */
    CHECK(count(MSAMP_REC_STACK) >= sessions / 8 - 1 && count(MSAMP_REC_STACK) >= 1);
#else
    CHECK_EQ(sessions, passes); /* no identity re-sends: a SESSION opens a pass, if any */
#endif
#if MSAMP_CFG_STACK_RESEND_SAMPLES
    CHECK(count(MSAMP_REC_STACK) >= count(MSAMP_REC_ALLOC) / MSAMP_CFG_STACK_RESEND_SAMPLES - 1);
#elif !MSAMP_CFG_RESEND_BYTES && !MSAMP_CFG_SNAPSHOTS
    CHECK(count(MSAMP_REC_STACK) <= 1); /* defined once (if it was new), never again */
#endif
    return passes;
}
void __wrap_free(void *p);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

/* The first events of both core tests, at interval 1 from the boot time 1000: malloc(100) at 1005
 * and calloc(10, 30) at 1012 from one 3-frame stack, the malloc'd block realloc'd to 1000 bytes
 * from a second stack, the calloc'd one freed, free(NULL). Returns the realloc'd block. */
static void *basic_events(void)
{
    fake_stack[0] = 0x401000;
    fake_stack[1] = 0x402000;
    fake_stack[2] = 0x400f00;
    fake_depth = 3;
    fake_time += 5;
    void *a = __wrap_malloc(100);
    fake_time += 7;
    void *b = __wrap_calloc(10, 30);
    fake_stack[0] = 0x401100;
    void *c = __wrap_realloc(a, 1000);
    __wrap_free(b);
    __wrap_free(NULL);
    return c;
}

/* What the decoded stream of basic_events() shows in either profile: a clean boot SESSION
 * (resend_seq 0, interval 1, the pointer size, a build-id of bid_len bytes), the first stack
 * before its ALLOCs, both ALLOCs with their sizes and times, the REALLOC of the first block from
 * the malloc's slot under the second stack (without chains: its FREE and an ALLOC), the FREE of
 * the calloc's slot. */
static void check_basic_events(size_t bid_len)
{
    CHECK_EQ(dstats.frames_bad, 0);
    CHECK_EQ(dstats.bytes_discarded, 0);
    CHECK(nrec > 0 && recs[0].type == MSAMP_REC_SESSION);
    CHECK_EQ(recs[0].a, 0);                 /* resend_seq 0: the boot header */
    CHECK_EQ(recs[0].b, 1);                 /* interval */
    CHECK_EQ(recs[0].c, sizeof(uintptr_t)); /* pointer size */
    CHECK_EQ(recs[0].d, bid_len);           /* build-id length */
    CHECK_EQ(count(MSAMP_REC_STACK), 2);    /* two distinct stacks, each sent once */
    const struct rec *s = find(MSAMP_REC_STACK, 0);
    CHECK(s && s->depth == 3 && s->frames[0] == 0x401000 && s->frames[1] == 0x402000 &&
          s->frames[2] == 0x400f00);
    const struct rec *al = find(MSAMP_REC_ALLOC, 0);
    CHECK(al && s && al->b == 100 && al->c == s->a && al->a != 0 && al->ts == 1005);
    const struct rec *ca = find(MSAMP_REC_ALLOC, 1);
    CHECK(ca && ca->b == 300 && ca->ts == 1012);
#if MSAMP_CFG_REALLOC_CHAINS
    const struct rec *re = find(MSAMP_REC_REALLOC, 0);
    CHECK(re && al && s && re->a == al->a - 1 && re->c == 1000 && re->d != s->a);
    const struct rec *fr = find(MSAMP_REC_FREE, 0);
#else
    /* No chains: the malloc'd block's FREE, then the new block's ALLOC under the second stack. */
    const struct rec *fa = find(MSAMP_REC_FREE, 0), *re = find(MSAMP_REC_ALLOC, 2);
    CHECK(fa && al && fa->a == al->a - 1);
    CHECK(re && s && fa && re->b == 1000 && re->c != s->a && fa < re);
    const struct rec *fr = find(MSAMP_REC_FREE, 1);
#endif
    CHECK(fr && ca && fr->a == ca->a - 1);
}

#endif
