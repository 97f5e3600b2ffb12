/* The live table (insert, find, remove, full buckets, one-bucket probes) and the stack table
 * (interning, ids, table and frame-pool exhaustion), built with small capacities. */
#include <string.h>

#include "check.h"
#include "msamp_internal.h"

struct msamp_heapdump_v1 msamp_heapdump;

static void test_live(void)
{
    struct msamp_heapdump_v1 *d = &msamp_heapdump;
    msamp_live_reset(d);
    CHECK_EQ(msamp_live_find(d, 0x1000), -1);
    /* Insert until every bucket refuses; count what fits. */
    uintptr_t addrs[4 * MSAMP_CFG_LIVE_CAPACITY];
    int32_t slots[4 * MSAMP_CFG_LIVE_CAPACITY];
    unsigned in = 0, refused = 0;
    for (unsigned i = 0; i < 4 * MSAMP_CFG_LIVE_CAPACITY; i++) {
        uintptr_t p = 0x10000 + (uintptr_t)i * 48u;
        int32_t s = msamp_live_free_slot(d, p);
        if (s < 0) {
            refused++;
            slots[i] = -1;
            addrs[i] = p;
            continue;
        }
        CHECK(s / MSAMP_CFG_LIVE_WAYS == msamp_live_free_slot(d, p) / MSAMP_CFG_LIVE_WAYS);
        msamp_live_set(d, (uint32_t)s, p, i + 1, 7, 100 + i);
        slots[i] = s;
        addrs[i] = p;
        in++;
    }
    CHECK_EQ(in, MSAMP_CFG_LIVE_CAPACITY); /* every slot is usable */
    CHECK_EQ(refused, 3 * MSAMP_CFG_LIVE_CAPACITY);
    CHECK_EQ(d->live_used, MSAMP_CFG_LIVE_CAPACITY);
    for (unsigned i = 0; i < 4 * MSAMP_CFG_LIVE_CAPACITY; i++) {
        CHECK_EQ(msamp_live_find(d, addrs[i]), slots[i]);
        if (slots[i] >= 0) {
            CHECK_EQ(d->live_size[slots[i]], i + 1);
            CHECK_EQ(d->live_birth[slots[i]], 100 + i);
        }
    }
    /* Remove every other one; they are gone, the rest stay, and their slots are reusable. */
    for (unsigned i = 0; i < 4 * MSAMP_CFG_LIVE_CAPACITY; i += 2)
        if (slots[i] >= 0)
            msamp_live_clear(d, (uint32_t)slots[i]);
    for (unsigned i = 0; i < 4 * MSAMP_CFG_LIVE_CAPACITY; i++) {
        if (slots[i] < 0)
            continue;
        CHECK_EQ(msamp_live_find(d, addrs[i]), i % 2 ? slots[i] : -1);
    }
    for (unsigned i = 0; i < 4 * MSAMP_CFG_LIVE_CAPACITY; i += 2)
        if (slots[i] >= 0)
            CHECK(msamp_live_free_slot(d, addrs[i]) >= 0);
    /* A probe never leaves its bucket: an address is only found in its own bucket. */
    uintptr_t p = 0x777770;
    int32_t s = msamp_live_free_slot(d, p);
    if (s >= 0) {
        msamp_live_set(d, (uint32_t)s, p, 1, 1, 1);
        CHECK_EQ(msamp_live_find(d, p), s);
        CHECK_EQ(msamp_live_find(d, p + 8), -1);
        msamp_live_clear(d, (uint32_t)s);
    }
}

static void test_stacks(void)
{
    struct msamp_heapdump_v1 *d = &msamp_heapdump;
    msamp_stacks_reset(d);
    uintptr_t a[3] = {0x100, 0x200, 0x300}, b[3] = {0x100, 0x200, 0x301}, c[2] = {0x100, 0x200};
    uint32_t ia = msamp_stacks_intern(d, a, 3);
    CHECK(ia != 0);
    CHECK_EQ(d->stacks_used, 1);
    CHECK_EQ(msamp_stacks_intern(d, a, 3), ia); /* found again, not added */
    CHECK_EQ(d->stacks_used, 1);
    CHECK_EQ(d->frames_used, 3);
    uint32_t ib = msamp_stacks_intern(d, b, 3);
    uint32_t ic = msamp_stacks_intern(d, c, 2);
    CHECK(ib != 0 && ib != ia && ic != 0 && ic != ia && ic != ib);
    const uintptr_t *got;
    CHECK_EQ(msamp_stacks_get(d, ib, &got), 3);
    CHECK(got[2] == 0x301);
    CHECK_EQ(msamp_stacks_get(d, 0, &got), 0);
    CHECK_EQ(msamp_stacks_intern(d, a, 0), 0);
    /* Fill the table: ids 1..capacity-1, then 0. */
    uint32_t used = d->stacks_used;
    unsigned made = 0, zero = 0;
    for (unsigned i = 0; i < 2 * MSAMP_CFG_STACK_CAPACITY; i++) {
        uintptr_t s[1] = {0x5000 + i};
        uint32_t id = msamp_stacks_intern(d, s, 1);
        if (id == 0)
            zero++;
        else
            made++;
        CHECK(id < MSAMP_CFG_STACK_CAPACITY);
    }
    CHECK_EQ(made + used, MSAMP_CFG_STACK_CAPACITY - 1u);
    CHECK_EQ(d->stacks_used, MSAMP_CFG_STACK_CAPACITY - 1u);
    CHECK(zero > 0);
    CHECK_EQ(msamp_stacks_intern(d, a, 3), ia); /* old stacks still found when full */
    /* The frame pool runs out before the table: id 0. */
    msamp_stacks_reset(d);
    uintptr_t deep[MSAMP_CFG_MAX_DEPTH];
    unsigned ok = 0;
    for (unsigned i = 0; i < 64; i++) {
        for (unsigned k = 0; k < MSAMP_CFG_MAX_DEPTH; k++)
            deep[k] = 0x9000 + i * 64 + k;
        if (msamp_stacks_intern(d, deep, MSAMP_CFG_MAX_DEPTH) != 0)
            ok++;
    }
    CHECK_EQ(ok, MSAMP_CFG_FRAME_POOL / MSAMP_CFG_MAX_DEPTH);
    CHECK(d->frames_used <= MSAMP_CFG_FRAME_POOL);
}

int main(void)
{
    test_live();
    test_stacks();
    return check_report("unit-tables");
}
