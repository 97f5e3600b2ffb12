/* The free filter of tables sized at init (MSAMP_CFG_RUNTIME_TABLES, the hosted library's build):
 * a byte per cell counting the live blocks whose cell it is (src/msamp_table.h, msamp_live_cell).
 * Checks that a cell counts its blocks up and down exactly, that a realloc's detached slot holds no
 * count, that a cell that reached 255 stays at 255 (it may have counted more blocks than it holds)
 * and answers "maybe" while the table's own scan still answers right, that other cells are never
 * touched, and that a reset clears every count. The port's table memory is a static buffer here. */
#include <string.h>

#include "check.h"
#include "msamp_internal.h"

_Static_assert(MSAMP_CFG_RUNTIME_TABLES && MSAMP_CFG_FREE_FILTER, "build with runtime tables");

#define LIVE 4096u
#define SAME 300u /* blocks that share one cell: more than a count holds */

void msamp_port_table_caps(uint32_t *live, uint32_t *stacks, uint32_t *frames)
{
    *live = LIVE;
    *stacks = 256;
    *frames = 4096;
}

void *msamp_port_table_memory(size_t bytes)
{
    static _Alignas(64) unsigned char mem[1u << 20];
    return bytes <= sizeof mem ? mem : NULL;
}

static uint32_t count_of(uintptr_t p)
{
    return atomic_load(&msamp_live_count[msamp_live_cell(p)]);
}

/* n 16-aligned addresses from `from` on whose cell is `cell`. */
static void same_cell(uint32_t cell, uintptr_t from, uintptr_t *out, unsigned n)
{
    for (uintptr_t p = from; n != 0; p += 16)
        if (msamp_live_cell(p) == cell) {
            *out++ = p;
            n--;
        }
}

/* Sets p in its first free slot; the slot, or -1 when its reach is full. */
static int32_t put(uintptr_t p)
{
    int32_t s = msamp_live_free_slot(p);
    if (s >= 0)
        msamp_live_set((uint32_t)s, p, 16, 0, 0, 1);
    return s;
}

/* Every cell but `except` (and the cells of the neighbours' addresses below) is zero. */
static unsigned nonzero_cells(uint32_t except)
{
    unsigned n = 0;
    for (uint32_t i = 0; i < MSAMP_PROBE_CELLS; i++)
        n += i != except && atomic_load(&msamp_live_count[i]) != 0;
    return n;
}

static void test_counts(void)
{
    CHECK_EQ(msamp_table_reset(), MSAMP_OK);
    CHECK_EQ(MSAMP_LIVE_CAP, LIVE);
    const uint32_t cell = msamp_live_cell(0x12345670u);
    static uintptr_t p[SAME];
    static int32_t slot[SAME];
    same_cell(cell, 0x100000, p, SAME);
    CHECK_EQ(count_of(p[0]), 0);
    CHECK_EQ(msamp_live_maybe(p[0]), 0);
    /* Up and down, exactly, below the cap. */
    for (unsigned i = 0; i < 5; i++) {
        slot[i] = put(p[i]);
        CHECK(slot[i] >= 0);
        CHECK_EQ(count_of(p[0]), i + 1);
    }
    CHECK_EQ(nonzero_cells(cell), 0);
    for (unsigned i = 0; i < 5; i++)
        CHECK_EQ(msamp_live_find(p[i]), slot[i]);
    for (unsigned i = 0; i < 5; i++) {
        msamp_live_clear((uint32_t)slot[i]);
        CHECK_EQ(count_of(p[0]), 4 - i);
        CHECK_EQ(msamp_live_find(p[i]), -1);
    }
    CHECK_EQ(msamp_live_maybe(p[0]), 0);
    /* A realloc detaches its slot (old | MSAMP_LIVE_MOVING): the old block's count goes at once and
     * the detached slot counts nothing; a failed call gives the slot its address back (counted
     * again); a move that ends in a free clears the slot without taking a count down twice. */
    int32_t s = put(p[0]);
    CHECK(s >= 0);
    msamp_live_publish((uint32_t)s, p[0] | MSAMP_LIVE_MOVING);
    CHECK_EQ(count_of(p[0]), 0);
    CHECK_EQ(msamp_live_find(p[0]), -1);
    msamp_live_publish((uint32_t)s, p[0]);
    CHECK_EQ(count_of(p[0]), 1);
    CHECK_EQ(msamp_live_find(p[0]), s);
    slot[1] = put(p[1]); /* a neighbour in the cell keeps its count through the move */
    CHECK(slot[1] >= 0);
    msamp_live_publish((uint32_t)s, p[0] | MSAMP_LIVE_MOVING);
    CHECK_EQ(count_of(p[0]), 1);
    msamp_live_clear((uint32_t)s);
    CHECK_EQ(count_of(p[0]), 1);
    CHECK_EQ(msamp_live_find(p[1]), slot[1]);
    msamp_live_clear((uint32_t)slot[1]);
    CHECK_EQ(count_of(p[0]), 0);
    CHECK_EQ(msamp_live_used(), 0);
    CHECK_EQ(nonzero_cells(cell), 0);
}

static void test_saturation(void)
{
    CHECK_EQ(msamp_table_reset(), MSAMP_OK);
    const uint32_t cell = msamp_live_cell(0x5551230u);
    static uintptr_t p[SAME + 1];
    static int32_t slot[SAME];
    same_cell(cell, 0x200000, p, SAME + 1);
    const uintptr_t other = p[SAME]; /* in the same cell, never set */
    unsigned in = 0;
    for (unsigned i = 0; i < SAME; i++) {
        slot[i] = put(p[i]);
        if (slot[i] < 0)
            continue;
        in++;
        CHECK_EQ(count_of(p[0]), in < 255 ? in : 255);
    }
    CHECK(in > 255); /* the table hash spreads them: the cell, not the table, is what fills */
    CHECK_EQ(msamp_live_used(), in);
    /* At the cap: every block is still found, and one that is not there is not found. */
    for (unsigned i = 0; i < SAME; i++)
        CHECK_EQ(msamp_live_find(p[i]), slot[i]);
    CHECK(msamp_live_maybe(other) != 0);
    CHECK_EQ(msamp_live_find(other), -1);
    /* Every block gone: the count stays at 255 (it may have counted more than it held), so its
     * probes keep answering "maybe" and the scan answers "not here". */
    for (unsigned i = 0; i < SAME; i++)
        if (slot[i] >= 0) {
            msamp_live_clear((uint32_t)slot[i]);
            CHECK_EQ(count_of(p[0]), 255);
            CHECK_EQ(msamp_live_find(p[i]), -1);
        }
    CHECK_EQ(msamp_live_used(), 0);
    CHECK_EQ(msamp_live_maybe(other), 255);
    CHECK_EQ(msamp_live_find(other), -1);
    CHECK_EQ(nonzero_cells(cell), 0);
    /* A new session's reset clears the stuck cell. */
    CHECK_EQ(msamp_table_reset(), MSAMP_OK);
    CHECK_EQ(count_of(p[0]), 0);
    CHECK_EQ(msamp_live_maybe(other), 0);
    CHECK_EQ(nonzero_cells(MSAMP_PROBE_CELLS), 0);
}

int main(void)
{
    test_counts();
    test_saturation();
    return check_report("unit-tables_runtime");
}
