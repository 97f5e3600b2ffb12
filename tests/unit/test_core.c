/* The core end to end on the fake port: wrappers -> sampler -> tables -> ring -> framer ->
 * transport, decoded by the host decoder. Covers sampling at interval 1, free/realloc/calloc,
 * stacks sent once per pass, ring overflow with exact drop counts, snapshot passes that make a
 * late-joining reader's live set complete, interval changes, disable/enable, reentrancy, partial
 * transport writes, and lock balance. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fake_port.h"
#include "msamp.h"
#include "msamp_decode.h"
#include "msamp_internal.h"
#include "rec_log.h"

static void drain_all(void)
{
    CHECK(msamp_flush() >= 0);
    CHECK_EQ(msamp_get_stats(&(struct msamp_stats){0}), 0);
}

static void test_basic_events(void)
{
    /* Pinned: the tables fill and refusals are counted, as before the adaptive interval. */
    struct msamp_config cfg = {.interval = 1, .resend_ms = 100000, .seed = 42, .pin_interval = 1};
    static const uint8_t bid[4] = {0xde, 0xad, 0xbe, 0xef};
    fake_build_id = bid;
    fake_build_id_len = 4;
    CHECK_EQ(msamp_init(&cfg), 0);
    CHECK_EQ(msamp_init(&cfg), MSAMP_ERR_STATE);

    void *c = basic_events();
    void *n = __wrap_realloc(NULL, 10); /* as malloc */
    void *z = __wrap_realloc(n, 0);     /* glibc frees and returns NULL */
    if (z != NULL)
        __wrap_free(z);
    drain_all();
    decode_from(0);

    check_basic_events(4);
    CHECK_EQ(count(MSAMP_REC_ALLOC), 3); /* malloc, calloc, realloc(NULL) */
    CHECK_EQ(count(MSAMP_REC_REALLOC), 1);
    CHECK_EQ(count(MSAMP_REC_FREE), z == NULL ? 2 : 2);

    struct msamp_stats st;
    CHECK_EQ(msamp_get_stats(&st), 0);
    CHECK_EQ(st.samples, 4);
    CHECK_EQ(st.live_used, 1); /* c */
    CHECK_EQ(st.ring_records, 0);
    __wrap_free(c);
    CHECK_EQ(msamp_get_stats(&st), 0);
    CHECK_EQ(st.live_used, 0);
    CHECK_EQ(msamp_get_stats(NULL), MSAMP_ERR_INVAL);
}

static void test_overflow_and_snapshot(void)
{
    /* Stall the transport: records pile up, then drop; the live table stays exact. */
    fake_transport_stalled = 1;
    struct msamp_stats before, after;
    msamp_get_stats(&before);
    enum { N = 3000 };
    static void *keep[N];
    for (int i = 0; i < N; i++) {
        fake_stack[0] = 0x500000 + (uintptr_t)(i % 5) * 16;
        keep[i] = __wrap_malloc(16 + (size_t)(i % 7));
    }
    for (int i = 0; i < N; i += 2)
        __wrap_free(keep[i]);
    msamp_get_stats(&after);
    CHECK(after.ring_records > before.ring_records);
    CHECK(after.ring_used > MSAMP_CFG_RING_SIZE - 64);
    /* Every allocation was sampled (interval 1): each kept block is tracked or was refused by
     * a full bucket, and each refusal was counted. */
    uint32_t tracked = 0;
    for (int i = 1; i < N; i += 2)
        tracked += (uint32_t)msamp_is_sampled(keep[i]);
    CHECK_EQ(after.live_used, tracked);
    CHECK_EQ(after.samples - before.samples, (uint32_t)N);
    CHECK(after.live_full - before.live_full >= (uint32_t)N - MSAMP_CFG_LIVE_CAPACITY);
    size_t mark = fake_out_len;
    fake_transport_stalled = 0;
    fake_transport_max = 3; /* partial writes from here on */
    CHECK_EQ(msamp_snapshot(), 0);
    for (int i = 0; i < 2000; i++)
        msamp_poll();
    drain_all();
    fake_transport_max = 0;
    decode_from(mark);
    CHECK_EQ(dstats.frames_bad, 0);
    /* The last DROPS record carries exactly the device's counters. */
    const struct rec *dr = NULL;
    for (int i = 0; i < nrec; i++)
        if (recs[i].type == MSAMP_REC_DROPS)
            dr = &recs[i];
    msamp_get_stats(&after);
    CHECK(dr != NULL);
    if (dr) {
        CHECK_EQ(dr->a, after.ring_records);
        CHECK_EQ(dr->b, after.ring_bytes);
    }
    /* The snapshot lists every live sampled block exactly once. */
    const struct rec *end = find(MSAMP_REC_SNAP_END, 0);
    CHECK(end != NULL);
    if (end)
        CHECK_EQ(end->b, after.live_used);
    CHECK_EQ(count(MSAMP_REC_LIVE), (int)after.live_used);
    unsigned long long bytes = 0;
    for (int i = 0; i < nrec; i++)
        if (recs[i].type == MSAMP_REC_LIVE)
            bytes += recs[i].b;
    unsigned long long truth = 0;
    for (int i = 1; i < N; i += 2)
        if (msamp_is_sampled(keep[i]))
            truth += 16 + (size_t)(i % 7);
    CHECK_EQ(bytes, truth);
    /* Each live stack defined within the pass, before its first LIVE use. */
    for (int i = 0; i < nrec; i++) {
        if (recs[i].type != MSAMP_REC_LIVE)
            continue;
        int defined = 0;
        for (int k = 0; k < i; k++)
            defined |= recs[k].type == MSAMP_REC_STACK && recs[k].a == recs[i].c;
        CHECK(defined);
    }
    for (int i = 1; i < N; i += 2)
        __wrap_free(keep[i]);
    msamp_get_stats(&after);
    CHECK_EQ(after.live_used, 0);
    drain_all();
}

static void test_late_join(void)
{
    /* A reader that joins mid-stream (mid-frame, even) sees a complete live set after a pass. */
    void *k[20];
    for (int i = 0; i < 20; i++)
        k[i] = __wrap_malloc(64);
    drain_all();
    size_t join = fake_out_len - 7; /* inside the last frame */
    fake_time += 1000000;           /* past the re-send period */
    msamp_poll();
    drain_all();
    decode_from(join);
    CHECK(dstats.bytes_discarded > 0);
    CHECK(count(MSAMP_REC_SESSION) >= 1);
    const struct rec *ss = find(MSAMP_REC_SESSION, 0);
    CHECK(ss && ss->a != 0); /* a re-send, not a boot header */
    CHECK_EQ(count(MSAMP_REC_LIVE), 20);
    CHECK(count(MSAMP_REC_STACK) >= 1);
    for (int i = 0; i < 20; i++)
        __wrap_free(k[i]);
    drain_all();
}

/* With time standing still (the re-send period is 100 s), the identity goes out by volume, and a
 * snapshot pass starts once MSAMP_CFG_SNAPSHOT_BYTES went out after the last. */
static void test_resend_by_volume(void)
{
    CHECK_EQ(check_identity_by_volume(MSAMP_CFG_SNAPSHOT_BYTES + 2 * MSAMP_CFG_RESEND_BYTES), 1);
}

static void test_controls(void)
{
    size_t mark = fake_out_len;
    CHECK_EQ(msamp_set_interval(0), MSAMP_ERR_INVAL);
    CHECK_EQ(msamp_set_interval(1u << 30), 0);
    /* With a 1 GiB interval, small allocations are (almost surely) not sampled. */
    struct msamp_stats a, b;
    msamp_get_stats(&a);
    for (int i = 0; i < 1000; i++)
        __wrap_free(__wrap_malloc(32));
    msamp_get_stats(&b);
    CHECK_EQ(b.samples, a.samples);
    CHECK_EQ(msamp_set_interval(1), 0);
    CHECK_EQ(msamp_disable(), 0);
    for (int i = 0; i < 100; i++)
        __wrap_free(__wrap_malloc(32));
    msamp_get_stats(&a);
    CHECK_EQ(a.samples, b.samples);
    CHECK_EQ(a.enabled, 0);
    CHECK_EQ(msamp_enable(), 0);
    __wrap_free(__wrap_malloc(32));
    msamp_get_stats(&b);
    CHECK_EQ(b.samples, a.samples + 1);
    CHECK_EQ(msamp_mark("phase 2", 7), 0);
    CHECK_EQ(msamp_mark(NULL, 1), MSAMP_ERR_INVAL);
    drain_all();
    decode_from(mark);
    CHECK_EQ(count(MSAMP_REC_INTERVAL), 2);
    CHECK(find(MSAMP_REC_INTERVAL, 0) && find(MSAMP_REC_INTERVAL, 0)->a == (1u << 30));
    CHECK_EQ(count(MSAMP_REC_MARK), 1);

    /* Reentrancy: an allocation in a context already inside msamp is skipped and counted. */
    msamp_get_stats(&a);
    fake_contexts[0].busy = 1;
    void *p = __wrap_malloc(8);
    fake_contexts[0].busy = 0;
    msamp_get_stats(&b);
    CHECK_EQ(b.reentrant, a.reentrant + 1);
    CHECK_EQ(b.samples, a.samples);
    __wrap_free(p);
    /* Another context (an "interrupt") samples independently. */
    fake_ctx = 1;
    void *q = __wrap_malloc(8);
    fake_ctx = 0;
    msamp_get_stats(&a);
    CHECK_EQ(a.samples, b.samples + 1);
    __wrap_free(q);
    drain_all();
    CHECK_EQ(fake_lock_errors, 0);
    CHECK_EQ(fake_lock_depth, 0);
}

/* Reads a RAM dump of the tables by the rules in msamp_heapdump.h alone (little-endian, 8-byte
 * pointers here): header, then each array naturally aligned in declaration order. Returns the
 * number of live slots and their total size, checking each slot's stack is defined. */
static uint32_t rd32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rdptr(const uint8_t *p, unsigned ps)
{
    return ps == 8 ? rd32(p) | (uint64_t)rd32(p + 4) << 32 : rd32(p);
}
static size_t align(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* Reads the dump block as a host tool would, field by field from its documented layout (v3: a
 * 56-byte header, then pointers to the arrays; here the "RAM image" is this process's memory). */
static int parse_dump(const uint8_t *m, size_t n, uint64_t *bytes, uint32_t *live)
{
    *bytes = 0;
    *live = 0;
    if (n < 64 || rd32(m) != MSAMP_HEAPDUMP_MAGIC || (m[4] | m[5] << 8) != MSAMP_HEAPDUMP_VERSION)
        return -1;
    unsigned ps = (unsigned)(m[6] | m[7] << 8);
    uint32_t lc = rd32(m + 8), ways = rd32(m + 12), sc = rd32(m + 16), fc = rd32(m + 20);
    if (ways == 0 || lc % ways != 0 || ps != sizeof(void *))
        return -1;
    size_t off = align(56, ps); /* the header is 56 bytes, then 7 pointers */
    const uint8_t *a_addr = (const uint8_t *)(uintptr_t)rdptr(m + off, ps);
    const uint8_t *a_size = (const uint8_t *)(uintptr_t)rdptr(m + off + ps, ps);
    const uint8_t *a_stack = (const uint8_t *)(uintptr_t)rdptr(m + off + 2 * ps, ps);
    const uint8_t *a_interval = (const uint8_t *)(uintptr_t)rdptr(m + off + 4 * ps, ps);
    const uint8_t *a_stacks = (const uint8_t *)(uintptr_t)rdptr(m + off + 5 * ps, ps);
    if (!a_addr || !a_size || !a_stack || !a_interval || !a_stacks)
        return -1;
    for (uint32_t i = 0; i < lc; i++) {
        if (rdptr(a_addr + i * ps, ps) == 0)
            continue;
        uint32_t id = rd32(a_stack + i * 4);
        if (id != 0 && id != MSAMP_WIRE_STACK_FULL) {
            const uint8_t *e = a_stacks + id * 16;
            unsigned depth = (unsigned)(e[8] | e[9] << 8);
            if (id >= sc || depth == 0 || rd32(e + 4) + depth > fc || rd32(e + 12) == 0)
                return -1; /* a live slot's stack is defined and counts it in refs */
        }
        if (rd32(a_interval + i * 4) == 0)
            return -1;
        *bytes += rdptr(a_size + i * ps, ps);
        (*live)++;
    }
    return 0;
}

static void test_ram_dump(void)
{
    void *k[10];
    uint64_t truth = 0;
    for (int i = 0; i < 10; i++) {
        k[i] = __wrap_malloc(100 + (size_t)i);
        truth += msamp_is_sampled(k[i]) ? 100u + (unsigned)i : 0u;
    }
    static uint8_t copy[sizeof msamp_heapdump];
    memcpy(copy, &msamp_heapdump, sizeof copy);
    uint64_t bytes;
    uint32_t live;
    CHECK_EQ(parse_dump(copy, sizeof copy, &bytes, &live), 0);
    struct msamp_stats st;
    msamp_get_stats(&st);
    CHECK_EQ(live, st.live_used);
    CHECK_EQ(bytes, truth);
    CHECK(live >= 10);
    for (int i = 0; i < 10; i++)
        __wrap_free(k[i]);
    drain_all();
}

/* A pool allocator profiled through MSAMP_WRAP_ALLOCATOR (the test calls the wrappers directly,
 * as -Wl,--wrap=pool_alloc,--wrap=pool_free would make the program do). */
static unsigned char pool[16][64];
static int pool_used[16];
void *__real_pool_alloc(size_t size);
void __real_pool_free(void *p);
void *__real_pool_alloc(size_t size)
{
    for (int i = 0; i < 16; i++)
        if (!pool_used[i] && size <= 64) {
            pool_used[i] = 1;
            return pool[i];
        }
    return NULL;
}
void __real_pool_free(void *p)
{
    pool_used[((unsigned char(*)[64])p) - pool] = 0;
}
MSAMP_WRAP_ALLOCATOR(pool_alloc, pool_free)

static void test_other_allocator(void)
{
    struct msamp_stats a, b;
    msamp_get_stats(&a);
    void *p = __wrap_pool_alloc(48);
    msamp_get_stats(&b);
    CHECK(p != NULL);
    CHECK_EQ(b.samples, a.samples + 1);
    CHECK_EQ(b.live_used, a.live_used + 1);
    CHECK(__wrap_pool_alloc(100) == NULL); /* a failed allocation is passed through, not sampled */
    __wrap_pool_free(p);
    msamp_get_stats(&b);
    CHECK_EQ(b.live_used, a.live_used);
    CHECK_EQ(b.frees, a.frees + 1);
}

/* free(NULL) must never touch the table, even when NULL's fingerprint bit is set in bucket 0
 * (empty slots hold address 0). Blocks are fabricated through msamp_on_alloc at addresses
 * chosen to land in NULL's bucket with NULL's fingerprint bit. */
static void test_free_null(void)
{
    uint32_t h0 = msamp_live_hash(0);
    uintptr_t a = 0x100000;
    int placed = 0;
    uintptr_t placed_at[2];
    for (; placed < 2 && a < (uintptr_t)0x100000000ull; a += 16) {
        uint32_t h = msamp_live_hash(a);
        if (msamp_live_bucket(h) == msamp_live_bucket(h0) && msamp_live_bit(h) == msamp_live_bit(h0))
            placed_at[placed++] = a;
    }
    CHECK_EQ(placed, 2);
    struct msamp_stats before, after;
    msamp_on_alloc((void *)placed_at[0], 64); /* interval 1: sampled */
    msamp_get_stats(&before);
    CHECK(msamp_live_maybe(0) != 0);
    __wrap_free(NULL);
    msamp_on_free(NULL);
    msamp_get_stats(&after);
    CHECK_EQ(after.live_used, before.live_used);
    CHECK_EQ(after.frees, before.frees);
    msamp_on_free((void *)placed_at[0]);
    msamp_get_stats(&after);
    CHECK_EQ(after.live_used, before.live_used - 1);
    drain_all();
}

/* Another context (an interrupt, a task, a thread) is handed the address realloc just freed, and
 * samples it, before the realloc's own bookkeeping: neither may take the other's live slot. Before
 * the realloc wrappers detached the old slot, the other context's sample freed the chain's slot as
 * stale, and the REALLOC then continued the other context's block. */
static void *race_block;
static void race_between(void *freed)
{
    unsigned was = fake_ctx;
    fake_ctx = 1;
    race_block = __wrap_malloc(100);
    fake_ctx = was;
    CHECK(race_block == freed); /* the fake allocator hands the freed block to the next malloc */
}

static void test_realloc_race(void)
{
    struct msamp_stats a, b;
    drain_all();
    CHECK_EQ(msamp_get_stats(&a), 0);
    size_t mark = fake_out_len;
    void *old = __wrap_malloc(100); /* interval 1: every allocation sampled */
    fake_realloc_between = race_between;
    void *grown = __wrap_realloc(old, 300);
    fake_realloc_between = NULL;
    CHECK(grown != NULL && grown != old);
    CHECK(msamp_is_sampled(race_block));
    CHECK(msamp_is_sampled(grown));
    CHECK_EQ(msamp_get_stats(&b), 0);
    CHECK_EQ(b.live_used, a.live_used + 2);
    drain_all();
    decode_from(mark);
    const struct rec *al = find(MSAMP_REC_ALLOC, 0), *other = find(MSAMP_REC_ALLOC, 1);
    const struct rec *re = find(MSAMP_REC_REALLOC, 0);
    CHECK(al != NULL && other != NULL && re != NULL);
    CHECK_EQ(count(MSAMP_REC_FREE), 0); /* the chain was not freed as the other block's stale entry */
    uint64_t other_slot = 0, chain_slot = 0;
    if (al && other && re) {
        CHECK(other->a != al->a);
        CHECK_EQ(re->a, al->a - 1); /* the REALLOC continues the first block's slot */
        CHECK_EQ(re->c, 300);
        other_slot = other->a - 1;
        chain_slot = re->b - 1;
        CHECK(chain_slot != other_slot);
    }
    mark = fake_out_len;
    __wrap_free(race_block);
    __wrap_free(grown);
    drain_all();
    decode_from(mark);
    const struct rec *f0 = find(MSAMP_REC_FREE, 0), *f1 = find(MSAMP_REC_FREE, 1);
    CHECK(f0 != NULL && f1 != NULL);
    if (f0 && f1) {
        CHECK_EQ(f0->a, other_slot);
        CHECK_EQ(f1->a, chain_slot);
        CHECK_EQ(f0->b + f1->b, 0); /* freed, not moved */
    }
    CHECK_EQ(msamp_get_stats(&b), 0);
    CHECK_EQ(b.live_used, a.live_used);

    /* A failed realloc gives the detached slot its address back: the block is tracked still. */
    void *keep = __wrap_malloc(64);
    fake_fail = 1;
    CHECK(__wrap_realloc(keep, 5000) == NULL);
    fake_fail = 0;
    CHECK(msamp_is_sampled(keep));
    CHECK(msamp_live_maybe((uintptr_t)keep) != 0);
    /* Moved to a block not sampled: the slot is freed, marked moved. */
    mark = fake_out_len;
    CHECK_EQ(msamp_set_interval(1u << 30), 0);
    void *moved = __wrap_realloc(keep, 200);
    CHECK(moved != NULL);
    CHECK(!msamp_is_sampled(moved) && !msamp_is_sampled(keep));
    drain_all();
    decode_from(mark);
    const struct rec *fm = find(MSAMP_REC_FREE, 0);
    CHECK(fm != NULL && fm->b == 1);
    CHECK_EQ(count(MSAMP_REC_REALLOC), 0);
    CHECK_EQ(msamp_set_interval(1), 0);
    __wrap_free(moved);
    CHECK_EQ(msamp_get_stats(&b), 0);
    CHECK_EQ(b.live_used, a.live_used);
    CHECK_EQ(fake_lock_errors, 0);
}

/* END is the session's last record (msamp.h, msamp_end): written once whatever the number of
 * msamp_end() calls (the later ones only move the ring's bytes out, returning as msamp_flush()),
 * and nothing follows it: a sampled block freed or reallocated after END passes through
 * unrecorded, as does an allocation after msamp_enable(), and a mark is refused. Starts the core
 * afresh. */
static void test_end_once(void)
{
    memset(&msamp_core, 0, sizeof msamp_core);
    memset(fake_contexts, 0, sizeof fake_contexts);
    fake_ctx = 0;
    fake_out_len = 0;
    struct msamp_config cfg = {.interval = 1, .seed = 3, .pin_interval = 1};
    CHECK_EQ(msamp_init(&cfg), 0);
    /* Enough blocks that their FREE records would fill frames (a frame is sent once closed). */
    enum { N = 200 };
    static void *a[N];
    int sampled = 0;
    for (int i = 0; i < N; i++)
        sampled += msamp_is_sampled(a[i] = __wrap_malloc(40));
    /* Tracked (interval 1) but for a full table's refusals. */
    CHECK(sampled >= (N < MSAMP_CFG_LIVE_CAPACITY ? N : MSAMP_CFG_LIVE_CAPACITY) / 2);
    void *b = __wrap_malloc(50), *c = __wrap_malloc(60);
    for (int i = 0; i < 3; i++)
        CHECK(msamp_end() >= 0);
    struct msamp_stats st0, st1;
    CHECK_EQ(msamp_get_stats(&st0), 0);
    for (int i = 0; i < N; i++)
        __wrap_free(a[i]);         /* sampled blocks: no FREE after END */
    b = __wrap_realloc(b, 500);    /* nor a REALLOC */
    CHECK_EQ(msamp_mark("late", 4), MSAMP_ERR_STATE);
    CHECK_EQ(msamp_enable(), MSAMP_ERR_STATE);
    void *d = __wrap_malloc(70);   /* sampling stays off */
    CHECK(msamp_end() >= 0);
    CHECK(msamp_flush() >= 0);
    CHECK_EQ(msamp_get_stats(&st1), 0);
    CHECK_EQ(st1.ring_records, st0.ring_records); /* passed through, not lost */
    CHECK_EQ(st1.samples, st0.samples);
    CHECK_EQ(st1.ring_used, 0);
    decode_from(0);
    CHECK_EQ(dstats.frames_bad, 0);
    CHECK_EQ(count(MSAMP_REC_END), 1);
    CHECK(nrec > 0 && recs[nrec - 1].type == MSAMP_REC_END);
    CHECK_EQ(count(MSAMP_REC_FREE), 0);
    CHECK_EQ(count(MSAMP_REC_REALLOC), 0);
    CHECK_EQ(count(MSAMP_REC_MARK), 0);
    __wrap_free(b);
    __wrap_free(c);
    __wrap_free(d);
}

/* The session id of a boot at time t (the fake port's entropy: its clock) of a device with that id
 * (NULL: none), from a fresh core; cold: the RAM-dump block (.noinit.msamp) without its magic, as
 * after power-on (else a warm boot: the previous boot's id is mixed in). */
static uint32_t session_at(uint64_t t, const char *device, int cold)
{
    memset(&msamp_core, 0, sizeof msamp_core);
    if (cold)
        atomic_store(&msamp_heapdump.magic, 0x1234u);
    fake_time = t;
    struct msamp_config cfg = {.interval = 4096, .seed = 7, .device_id = device};
    CHECK_EQ(msamp_init(&cfg), 0);
    CHECK(msamp_flush() >= 0);
    return msamp_core.session_id;
}

/* Cold boots alike (the same clock at init, the same seed) draw the same id unless the device id
 * differs: it is mixed in (issue 26); warm boots alike draw different ids, the previous boot's
 * mixed in (issue 38). Last: it starts the core afresh each time. */
static void test_session_entropy(void)
{
    uint32_t none = session_at(1000, NULL, 1), a = session_at(1000, "dev-a", 1);
    CHECK_EQ(session_at(1000, NULL, 1), none); /* nothing tells these two boots apart */
    CHECK_EQ(session_at(1000, "dev-a", 1), a);
#if !MSAMP_CFG_TINY
    CHECK(a != none);
    CHECK(session_at(1000, "dev-b", 1) != a);
#else
    CHECK_EQ(a, none); /* the tiny profile takes the id from the port only (none here) */
#endif
    CHECK(session_at(1001, NULL, 1) != none);
    uint32_t cold = session_at(1000, NULL, 1), warm1 = session_at(1000, NULL, 0),
             warm2 = session_at(1000, NULL, 0);
    CHECK_EQ(cold, none);
    CHECK(warm1 != cold && warm2 != cold && warm2 != warm1); /* the previous id tells them apart */
}

/* The sampling decisions of 2000 allocations after msamp_init at the seed, as a hash; with early,
 * the thread context allocates before msamp_init (a constructor, the C library's start-up) and so
 * joins the registry with no seed yet. Starts the core afresh. */
static uint64_t decisions(uint64_t seed, int early)
{
    memset(&msamp_core, 0, sizeof msamp_core);
    memset(fake_contexts, 0, sizeof fake_contexts);
    fake_ctx = 0;
    fake_out_len = 0;
    if (early)
        __wrap_free(__wrap_malloc(100));
    struct msamp_config cfg = {.interval = 256, .seed = seed, .pin_interval = 1};
    CHECK_EQ(msamp_init(&cfg), 0);
    uint64_t h = 14695981039346656037u;
    uint32_t before = msamp_core.samples;
    for (int i = 0; i < 2000; i++) {
        __wrap_free(__wrap_malloc(64));
        h = (h ^ (msamp_core.samples != before)) * 1099511628211u;
        before = msamp_core.samples;
        if ((i & 63) == 0)
            CHECK(msamp_flush() >= 0);
    }
    CHECK(msamp_core.samples > 300 && msamp_core.samples < 700); /* 2000 x (1 - e^-1/4) = 442 */
    return h;
}

/* A fixed seed gives the same decisions, and another seed others, also for a context that first
 * allocated before msamp_init (it was seeded from no seed and kept that generator: the seed was
 * ignored for it). Last: it starts the core afresh each time. */
static void test_seed_before_init(void)
{
    for (int early = 0; early <= 1; early++) {
        uint64_t a = decisions(7, early);
        CHECK_EQ(decisions(7, early), a);
        CHECK(decisions(8, early) != a);
    }
}

int main(void)
{
    test_basic_events();
    test_free_null();
    test_ram_dump();
    test_other_allocator();
    test_realloc_race();
    test_overflow_and_snapshot();
    test_late_join();
    test_resend_by_volume();
    test_controls();
    test_end_once();
    test_session_entropy();
    test_seed_before_init();
    return check_report("unit-core");
}
