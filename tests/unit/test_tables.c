/* The table interface (src/msamp_table.h) on whichever implementation the build chose (unit-tables:
 * the RAM-dump tables; unit-tables-compact: MSAMP_CFG_HEAPDUMP 0), with small capacities: the live
 * table (insert, find, remove, full buckets, one-bucket probes, fingerprint masks) and the stack
 * table (interning, ids, sent marks, exhaustion). */
#include <string.h>

#include "check.h"
#include "msamp_internal.h"

#define N (4u * MSAMP_CFG_LIVE_CAPACITY)

static void test_live(void)
{
    msamp_table_reset();
    CHECK_EQ(msamp_live_find(0x1000), -1);
    CHECK_EQ(msamp_live_find(0), -1);
    /* Insert until every bucket refuses; count what fits. */
    static uintptr_t addrs[N];
    static int32_t slots[N];
    unsigned in = 0, refused = 0;
    for (unsigned i = 0; i < N; i++) {
        uintptr_t p = 0x10000 + (uintptr_t)i * 48u;
        addrs[i] = p;
        int32_t s = msamp_live_free_slot(p);
        slots[i] = s;
        if (s < 0) {
            refused++;
            continue;
        }
        CHECK_EQ((uint32_t)s / MSAMP_CFG_LIVE_WAYS, msamp_live_bucket(msamp_live_hash(p)));
        msamp_live_set((uint32_t)s, p, i + 1, 7, 100 + i);
        CHECK(msamp_live_maybe(p) != 0);
        in++;
    }
    CHECK_EQ(in, MSAMP_CFG_LIVE_CAPACITY); /* every slot is usable */
    CHECK_EQ(refused, N - MSAMP_CFG_LIVE_CAPACITY);
    CHECK_EQ(msamp_live_used(), MSAMP_CFG_LIVE_CAPACITY);
    for (unsigned i = 0; i < N; i++) {
        CHECK_EQ(msamp_live_find(addrs[i]), slots[i]);
#if MSAMP_CFG_HEAPDUMP
        if (slots[i] >= 0) {
            struct msamp_live_entry e;
            msamp_live_get((uint32_t)slots[i], &e);
            CHECK(e.addr == addrs[i] && e.size == i + 1 && e.stack == 7 && e.birth == 100 + i);
        }
#endif
    }
    /* Remove every other one; they are gone, the rest stay, and their slots are reusable. */
    for (unsigned i = 0; i < N; i += 2)
        if (slots[i] >= 0)
            msamp_live_clear((uint32_t)slots[i]);
    CHECK_EQ(msamp_live_used(), MSAMP_CFG_LIVE_CAPACITY / 2u);
    for (unsigned i = 0; i < N; i++)
        if (slots[i] >= 0)
            CHECK_EQ(msamp_live_find(addrs[i]), i % 2 ? slots[i] : -1);
    for (unsigned i = 0; i < N; i += 2)
        if (slots[i] >= 0)
            CHECK(msamp_live_free_slot(addrs[i]) >= 0);
    /* Each bucket's mask holds exactly its blocks' bits. */
    for (uint32_t b = 0; b < MSAMP_LIVE_BUCKETS; b++) {
        uint32_t want = 0;
        for (unsigned i = 1; i < N; i += 2)
            if (slots[i] >= 0 && (uint32_t)slots[i] / MSAMP_CFG_LIVE_WAYS == b)
                want |= msamp_live_bit(msamp_live_hash(addrs[i]));
        CHECK_EQ(atomic_load(&msamp_live_mask[b]), want);
    }
    /* A probe never leaves its bucket: an address is only found in its own bucket. */
    uintptr_t p = 0x777770;
    int32_t s = msamp_live_free_slot(p);
    if (s >= 0) {
        msamp_live_set((uint32_t)s, p, 1, 1, 1);
        CHECK_EQ(msamp_live_find(p), s);
        CHECK_EQ(msamp_live_find(p + 8), -1);
        msamp_live_clear((uint32_t)s);
    }
}

/* As the core interns: a new stack's definition is sent at once (pass 1). */
static uint32_t intern_sent(const uintptr_t *pcs, uint32_t n)
{
    uint32_t id = msamp_stack_intern(pcs, n);
    if (msamp_stack_unsent(id, 1))
        msamp_stack_sent(id, 1);
    return id;
}

static void test_stacks(void)
{
    msamp_table_reset();
    uintptr_t a[3] = {0x100, 0x200, 0x300}, b[3] = {0x100, 0x200, 0x301}, c[2] = {0x100, 0x200};
    uint32_t ia = intern_sent(a, 3);
    CHECK(ia != 0);
    CHECK_EQ(msamp_stacks_used(), 1);
    CHECK_EQ(msamp_stack_intern(a, 3), ia); /* found again, not added */
    CHECK(!msamp_stack_unsent(ia, 1));
    CHECK_EQ(msamp_stacks_used(), 1);
    /* Sent marks: unsent until marked, id 0 never. */
    uint32_t ib = msamp_stack_intern(b, 3);
    CHECK(ib != 0 && ib != ia);
    CHECK(msamp_stack_unsent(ib, 1));
    CHECK(!msamp_stack_unsent(0, 1));
    msamp_stack_sent(ib, 1);
    CHECK(!msamp_stack_unsent(ib, 1));
    CHECK_EQ(msamp_stack_intern(b, 3), ib);
    uint32_t ic = intern_sent(c, 2);
    CHECK(ic != 0 && ic != ia && ic != ib);
    CHECK_EQ(msamp_stack_intern(a, 0), 0);
#if !MSAMP_CFG_HEAPDUMP
    /* A new stack whose definition did not go out keeps no id: the next new one is offered it. */
    uintptr_t d[1] = {0x400}, e[1] = {0x500};
    uint32_t id = msamp_stack_intern(d, 1);
    CHECK_EQ(msamp_stack_intern(e, 1), id);
    msamp_stack_sent(id, 1);
    CHECK_EQ(msamp_stack_intern(e, 1), id);
    CHECK(msamp_stack_intern(d, 1) != id);
    msamp_table_reset();
    ia = intern_sent(a, 3);
#else
    /* With passes: unsent again in a new pass. */
    CHECK(msamp_stack_unsent(ib, 2));
    const uintptr_t *got;
    CHECK_EQ(msamp_frames_used(), 8);
    CHECK_EQ(msamp_stack_frames(ib, &got), 3);
    CHECK(got[2] == 0x301);
    CHECK_EQ(msamp_stack_frames(0, &got), 0);
#endif
    /* Fill the table: ids 1..capacity-1, then 0. */
    uint32_t used = msamp_stacks_used();
    unsigned made = 0, zero = 0;
    for (unsigned i = 0; i < 2 * MSAMP_CFG_STACK_CAPACITY; i++) {
        uintptr_t s[1] = {0x5000 + i};
        uint32_t id = intern_sent(s, 1);
        if (id == 0)
            zero++;
        else
            made++;
        CHECK(id < MSAMP_CFG_STACK_CAPACITY);
    }
    CHECK_EQ(made + used, MSAMP_CFG_STACK_CAPACITY - 1u);
    CHECK_EQ(msamp_stacks_used(), MSAMP_CFG_STACK_CAPACITY - 1u);
    CHECK(zero > 0);
    CHECK_EQ(msamp_stack_intern(a, 3), ia); /* old stacks still found when full */
#if MSAMP_CFG_HEAPDUMP
    /* The frame pool runs out before the table: id 0. */
    msamp_table_reset();
    uintptr_t deep[MSAMP_CFG_MAX_DEPTH];
    unsigned ok = 0;
    for (unsigned i = 0; i < 64; i++) {
        for (unsigned k = 0; k < MSAMP_CFG_MAX_DEPTH; k++)
            deep[k] = 0x9000 + i * 64 + k;
        if (intern_sent(deep, MSAMP_CFG_MAX_DEPTH) != 0)
            ok++;
    }
    CHECK_EQ(ok, MSAMP_CFG_FRAME_POOL / MSAMP_CFG_MAX_DEPTH);
    CHECK(msamp_frames_used() <= MSAMP_CFG_FRAME_POOL);
#endif
}

int main(void)
{
    test_live();
    test_stacks();
    return check_report(MSAMP_CFG_HEAPDUMP ? "unit-tables" : "unit-tables-compact");
}
