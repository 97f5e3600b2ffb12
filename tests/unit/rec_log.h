/* The records of a device stream, decoded by the host decoder into a flat log the core tests
 * (test_core.c, test_tiny.c) query. Include once, after msamp_decode.h and fake_port.h. */
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

#endif
