/* The table interface (src/msamp_table.h) on whichever implementation the build chose (unit-tables:
 * the RAM-dump tables; unit-tables-compact: MSAMP_CFG_COMPACT_TABLES), with small capacities: the live
 * table (insert, find, remove, a bucket's overflow into its reach, full reaches, fingerprint masks by
 * home) and the stack
 * table (interning, ids, sent marks, references, eviction of unused stacks, the pool's compaction,
 * MSAMP_WIRE_STACK_FULL when every stack is in use). */
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
        /* The first free slot of its reach, in its order: way 0 of its home bucket and of the 3
         * after it, then way 1, ...; numbered way-major, so every slot before it in that order is
         * taken, and it is in the lowest way free in the reach. */
        CHECK(msamp_live_reaches(p, (uint32_t)s));
        uint32_t home = msamp_live_bucket(msamp_live_hash(p)), k = 0;
        while (k < MSAMP_LIVE_REACH && msamp_live_reach_slot(home, k) != (uint32_t)s)
            CHECK(msamp_live_addr(msamp_live_reach_slot(home, k++)) != 0);
        CHECK(k < MSAMP_LIVE_REACH);
        CHECK_EQ((uint32_t)s / MSAMP_LIVE_BUCKETS, k / MSAMP_LIVE_REACH_BUCKETS);
        msamp_live_set((uint32_t)s, p, i + 1, 7, 100 + i, 4096);
        CHECK(msamp_live_maybe(p) != 0);
        in++;
    }
    CHECK_EQ(in, MSAMP_CFG_LIVE_CAPACITY); /* every slot is usable */
    CHECK_EQ(refused, N - MSAMP_CFG_LIVE_CAPACITY);
    CHECK_EQ(msamp_live_used(), MSAMP_CFG_LIVE_CAPACITY);
    for (unsigned i = 0; i < N; i++) {
        CHECK_EQ(msamp_live_find(addrs[i]), slots[i]);
#if !MSAMP_CFG_COMPACT_TABLES
        if (slots[i] >= 0) {
            struct msamp_live_entry e;
            msamp_live_get((uint32_t)slots[i], &e);
            CHECK(e.addr == addrs[i] && e.size == i + 1 && e.stack == 7 && e.birth == 100 + i &&
                  e.interval == 4096);
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
    /* Each bucket's mask holds exactly the bits of the blocks whose home it is, in it or in a
     * bucket after it. */
    unsigned overflowed = 0;
    for (unsigned i = 1; i < N; i += 2)
        overflowed += slots[i] >= 0 && msamp_live_bucket_of((uint32_t)slots[i]) !=
                                           msamp_live_bucket(msamp_live_hash(addrs[i]));
    CHECK(MSAMP_LIVE_BUCKETS == 1 || overflowed > 0); /* the test covers blocks in a neighbour */
    for (uint32_t b = 0; b < MSAMP_LIVE_BUCKETS; b++) {
        uint32_t want = 0;
        for (unsigned i = 1; i < N; i += 2)
            if (slots[i] >= 0 && msamp_live_bucket(msamp_live_hash(addrs[i])) == b)
                want |= msamp_live_bit(msamp_live_hash(addrs[i]));
        CHECK_EQ(atomic_load(&msamp_live_mask[b]), want);
    }
    /* A probe never leaves its reach: an address is only found where it is. */
    uintptr_t p = 0x777770;
    int32_t s = msamp_live_free_slot(p);
    if (s >= 0) {
        msamp_live_set((uint32_t)s, p, 1, 1, 1, 1);
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
#if !MSAMP_CFG_COMPACT_TABLES
    /* With passes: unsent again in a new pass. */
    CHECK(msamp_stack_unsent(ib, 2));
    const uintptr_t *got;
    CHECK_EQ(msamp_frames_used(), 11); /* 3 stacks: frames and one header word each */
    CHECK_EQ(msamp_stack_frames(ib, &got), 3);
    CHECK(got[2] == 0x301);
    CHECK_EQ(msamp_stack_frames(0, &got), 0);
#endif
    CHECK(!msamp_stack_unsent(MSAMP_WIRE_STACK_FULL, 1));
#if !MSAMP_CFG_COMPACT_TABLES
    /* Every stack in use (a live slot refers to it): a new one finds the table full. */
    msamp_table_reset();
    unsigned made = 0, full = 0, slot = 0;
    for (unsigned i = 0; i < 2 * MSAMP_CFG_STACK_CAPACITY; i++) {
        uintptr_t s[1] = {0x5000 + i};
        uint32_t id = intern_sent(s, 1);
        if (id == MSAMP_WIRE_STACK_FULL) {
            full++;
            continue;
        }
        CHECK(id != 0 && id < MSAMP_CFG_STACK_CAPACITY);
        msamp_live_set(slot, 0x100000 + slot * 64u, 8, id, 0, 1);
        slot++;
        made++;
    }
    CHECK_EQ(made, MSAMP_CFG_STACK_CAPACITY - 1u);
    CHECK_EQ(msamp_stacks_used(), MSAMP_CFG_STACK_CAPACITY - 1u);
    CHECK_EQ(msamp_stacks_referenced(), MSAMP_CFG_STACK_CAPACITY - 1u);
    CHECK(full > 0);
    CHECK_EQ(msamp_stacks_evicted(), 0);
    uintptr_t first[1] = {0x5000};
    CHECK_EQ(msamp_stack_intern(first, 1), 1); /* old stacks still found when full */
    /* One stack falls out of use: the next new stack takes its id, unsent, and the old one is
     * gone (interned again, it needs an id of its own). */
    msamp_live_clear(0); /* slot 0 held stack 1 */
    CHECK_EQ(msamp_stacks_referenced(), MSAMP_CFG_STACK_CAPACITY - 2u);
    uintptr_t fresh[2] = {0x7000, 0x7008};
    uint32_t reused = msamp_stack_intern(fresh, 2);
    CHECK_EQ(reused, 1);
    CHECK(msamp_stack_unsent(reused, 1));
    CHECK_EQ(msamp_stacks_evicted(), 1);
    CHECK_EQ(msamp_stack_intern(fresh, 2), reused);
    msamp_live_set(0, 0x100000, 8, reused, 0, 1);
    CHECK_EQ(msamp_stack_intern(first, 1), MSAMP_WIRE_STACK_FULL); /* all in use again */
    const uintptr_t *f;
    CHECK_EQ(msamp_stack_frames(reused, &f), 2);
    CHECK(f[0] == 0x7000 && f[1] == 0x7008);
    /* The frame pool: deep stacks fill it; while they are unused, new ones evict old ones and the
     * pool is compacted; a stack in use keeps its frames whatever moves around it. */
    msamp_table_reset();
    uintptr_t deep[MSAMP_CFG_MAX_DEPTH], keep[3] = {0xA000, 0xA008, 0xA010};
    uint32_t kept = intern_sent(keep, 3);
    msamp_live_set(0, 0x200000, 8, kept, 0, 1);
    unsigned ok = 0;
    for (unsigned i = 0; i < 64; i++) {
        for (unsigned k = 0; k < MSAMP_CFG_MAX_DEPTH; k++)
            deep[k] = 0x9000 + i * 64 + k;
        uint32_t id = intern_sent(deep, MSAMP_CFG_MAX_DEPTH);
        CHECK(id != 0 && id != MSAMP_WIRE_STACK_FULL && id != kept);
        CHECK_EQ(msamp_stack_frames(id, &f), MSAMP_CFG_MAX_DEPTH);
        CHECK(f[0] == 0x9000 + i * 64 && f[MSAMP_CFG_MAX_DEPTH - 1] == deep[MSAMP_CFG_MAX_DEPTH - 1]);
        ok++;
        CHECK(msamp_frames_used() <= MSAMP_CFG_FRAME_POOL);
    }
    CHECK_EQ(ok, 64);
    CHECK(msamp_stacks_evicted() > 0);
    CHECK_EQ(msamp_stack_frames(kept, &f), 3);
    CHECK(f[0] == 0xA000 && f[2] == 0xA010);
    CHECK_EQ(msamp_stack_intern(keep, 3), kept);
    /* Every deep stack in use: the pool is full for good. */
    msamp_table_reset();
    unsigned fit = 0;
    for (unsigned i = 0; i < 64; i++) {
        for (unsigned k = 0; k < MSAMP_CFG_MAX_DEPTH; k++)
            deep[k] = 0x9000 + i * 64 + k;
        uint32_t id = intern_sent(deep, MSAMP_CFG_MAX_DEPTH);
        if (id == MSAMP_WIRE_STACK_FULL)
            continue;
        msamp_live_set(fit, 0x300000 + fit * 64u, 8, id, 0, 1);
        fit++;
    }
    CHECK_EQ(fit, MSAMP_CFG_FRAME_POOL / (MSAMP_CFG_MAX_DEPTH + 1u));
#endif
}

/* Random churn: stacks come and go through eviction (the index deletes with backward shifts); a
 * stack in use always keeps its id and frames, and is found again. */
static void test_stack_churn(void)
{
#if MSAMP_CFG_COMPACT_TABLES
    /* The compact tables evict any stack in turn, used or not (nothing reads an id again). */
    msamp_table_reset();
    for (unsigned i = 0; i < 3 * MSAMP_CFG_STACK_CAPACITY; i++) {
        uintptr_t pcs[1] = {0x1000 + i};
        uint32_t id = intern_sent(pcs, 1);
        CHECK(id != 0 && id < MSAMP_CFG_STACK_CAPACITY);
        CHECK_EQ(msamp_stack_intern(pcs, 1), id);
    }
    CHECK_EQ(msamp_stacks_evicted(), 2 * MSAMP_CFG_STACK_CAPACITY + 1u);
    return;
#endif
    msamp_table_reset();
    enum { KINDS = 3 * MSAMP_CFG_STACK_CAPACITY };
    static uint32_t id_of[KINDS];
    static int32_t slot_of[KINDS];
    uint64_t rng = 12345;
    for (unsigned k = 0; k < KINDS; k++) {
        id_of[k] = 0;
        slot_of[k] = -1;
    }
    for (unsigned step = 0; step < 20000; step++) {
        unsigned k = (unsigned)(msamp_rng_next(&rng) % KINDS);
        uintptr_t pcs[4] = {0x1000 + k, 0x2000 + k * 3u, 0x3000, 0x4000 + (k & 7u)};
        uint32_t depth = 1u + k % 4u;
        if (slot_of[k] >= 0) { /* in use: found with its id; maybe released */
            CHECK_EQ(msamp_stack_intern(pcs, depth), id_of[k]);
#if !MSAMP_CFG_COMPACT_TABLES
            const uintptr_t *f;
            CHECK_EQ(msamp_stack_frames(id_of[k], &f), depth);
            CHECK(f[0] == pcs[0] && f[depth - 1] == pcs[depth - 1]);
#endif
            if (msamp_rng_next(&rng) % 2) {
                msamp_live_clear((uint32_t)slot_of[k]);
                slot_of[k] = -1;
            }
            continue;
        }
        uint32_t id = intern_sent(pcs, depth);
        if (id == MSAMP_WIRE_STACK_FULL)
            continue;
        CHECK(id != 0 && id < MSAMP_CFG_STACK_CAPACITY);
        uintptr_t addr = 0x100000 + (uintptr_t)k * 64u;
        int32_t slot = msamp_live_free_slot(addr);
        if (slot < 0)
            continue;
        msamp_live_set((uint32_t)slot, addr, 8, id, 0, 1);
        id_of[k] = id;
        slot_of[k] = slot;
    }
    CHECK(msamp_stacks_evicted() > 100);
}

int main(void)
{
    test_stack_churn();
    test_live();
    test_stacks();
    return check_report(!MSAMP_CFG_COMPACT_TABLES ? "unit-tables" : "unit-tables-compact");
}
