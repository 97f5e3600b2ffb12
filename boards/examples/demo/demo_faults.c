/*
 * The demo's device-fault variants: see demo_faults.h. Linked only into demo-faults-*.elf
 * (tests/board/board_faults.mk).
 */
#define DEMO_FAULTS_IMPL 1
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "demo.h"
#include "msamp.h"
#include "msamp_heapdump.h"
#include "msamp_wire.h"
#if defined(DEMO_NO_ENTROPY) && DEMO_NO_ENTROPY
#include "common/board_common.h"
#endif

static void print_boot(void)
{
    struct demo_line l;
    line_start(&l, "msamp-demo boot");
#if MSAMP_CFG_HEAPDUMP
    char id[] = " session=0x00000000";
    board_put_hex(id + 11, msamp_heapdump.session_id, 8);
    line_str(&l, id);
#endif
    line_u64(&l, "boots", board_boot_count());
    line_emit(&l);
}

#if defined(DEMO_NO_ENTROPY) && DEMO_NO_ENTROPY
/* A device with no entropy at all (demo-faults-boots): the clock's share is a constant, so only the
 * boot counter (board_port.c) tells one boot's session id from the next's. */
uint64_t board_entropy_clock(void)
{
    return 0;
}
#endif

#if DEMO_FAULTS >= 2
/* The registry: every block the demo holds, by address (open addressing, linear probing,
 * backward-shift deletion), updated with interrupts masked (the timer interrupt uses it too). */
#define HELD_CAP 8192u
#define MAX_SITES 16u
struct held {
    uintptr_t addr; /* 0: empty */
    uint32_t size;
    uint8_t site;
    uint8_t seen;
};
static struct held held[HELD_CAP];
static uint32_t held_count;
static const char *site_name[MAX_SITES];
static unsigned sites;
static volatile uint32_t in_isr, main_busy, isr_in_alloc, isr_calls;

static uint32_t slot_of(uintptr_t a)
{
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 40) & (HELD_CAP - 1u);
}

static uint8_t site_index(const char *name)
{
    for (unsigned i = 0; i < sites; i++)
        if (site_name[i] == name)
            return (uint8_t)i;
    if (sites == MAX_SITES)
        demo_fail("faults: too many sites");
    site_name[sites] = name;
    return (uint8_t)sites++;
}

static uint32_t find(uintptr_t a)
{
    for (uint32_t i = slot_of(a), n = 0; n < HELD_CAP; i = (i + 1u) & (HELD_CAP - 1u), n++) {
        if (held[i].addr == a)
            return i;
        if (held[i].addr == 0)
            return UINT32_MAX;
    }
    return UINT32_MAX;
}

static void held_add(void *p, size_t n, const char *site)
{
    uintptr_t a = (uintptr_t)p;
    uintptr_t irq = board_irq_save();
    if (find(a) != UINT32_MAX)
        demo_fail("faults: the heap handed out a block the demo holds");
    if (held_count >= HELD_CAP / 2u)
        demo_fail("faults: registry full");
    uint32_t i = slot_of(a);
    while (held[i].addr != 0)
        i = (i + 1u) & (HELD_CAP - 1u);
    held[i].addr = a;
    held[i].size = (uint32_t)n;
    held[i].site = site_index(site);
    held[i].seen = 0;
    held_count++;
    board_irq_restore(irq);
}

static void held_del(void *p)
{
    if (p == NULL)
        return;
    uintptr_t irq = board_irq_save();
    uint32_t i = find((uintptr_t)p);
    if (i == UINT32_MAX)
        demo_fail("faults: free of a block the registry does not hold");
    for (uint32_t j = i;;) {
        j = (j + 1u) & (HELD_CAP - 1u);
        if (held[j].addr == 0)
            break;
        uint32_t k = slot_of(held[j].addr);
        /* The entry at j stays when its home k lies cyclically in (i, j]. */
        if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
            continue;
        held[i] = held[j];
        i = j;
    }
    held[i].addr = 0;
    held_count--;
    board_irq_restore(irq);
}

void demo_faults_enter(void)
{
    if (!in_isr)
        main_busy = 1;
}

void demo_faults_leave(void)
{
    if (!in_isr)
        main_busy = 0;
}

void *demo_faults_add(void *p, size_t n, const char *site)
{
    if (p != NULL)
        held_add(p, n, site);
    demo_faults_leave();
    return p;
}

void *demo_faults_del(void *p)
{
    demo_faults_enter();
    held_del(p);
    return p;
}

/* realloc frees the old block before the registry hears of the new one: the interrupt, which
 * could be handed the old address in between, is kept out. Main context only. */
static uintptr_t realloc_irq;

void *demo_faults_realloc_begin(void *old)
{
    realloc_irq = board_irq_save();
    held_del(old);
    return old;
}

void *demo_faults_realloc_done(void *p, size_t n, const char *site)
{
    if (p != NULL)
        held_add(p, n, site);
    board_irq_restore(realloc_irq);
    return p;
}

static void (*user_isr)(void);
static uint32_t scratch_state = 7;

__attribute__((noinline)) static void isr_scratch(void)
{
    scratch_state = scratch_state * 1664525u + 1013904223u;
    size_t n = 16u + (scratch_state >> 24) % 240u;
    void *p = malloc(n);
    if (p == NULL)
        demo_fail("faults: out of heap in the interrupt");
    held_add(p, n, __func__);
    *(volatile uint8_t *)p = (uint8_t)n;
    held_del(p);
    free(p);
}

static void faults_isr(void)
{
    in_isr = 1;
    isr_calls++;
    if (main_busy)
        isr_in_alloc++;
    user_isr();
    isr_scratch();
    in_isr = 0;
}

int demo_faults_timer_start(uint32_t period_us, void (*fn)(void))
{
    user_isr = fn;
    return board_timer_start(period_us, faults_isr);
}

static void check_live_table(void)
{
    struct demo_line l;
    const struct msamp_heapdump_v3 *d = &msamp_heapdump;
    if (atomic_load(&d->magic) != MSAMP_HEAPDUMP_MAGIC)
        demo_fail("faults: no heapdump block");
    uint32_t entries = 0, not_held = 0, wrong_size = 0, dup = 0, stack_full = 0;
    uint32_t per_site[MAX_SITES] = {0};
    for (uint32_t i = 0; i < d->live_capacity; i++) {
        uintptr_t a = atomic_load_explicit(&d->live_addr[i], memory_order_acquire);
        if (a == 0)
            continue;
        entries++;
        uint32_t h = find(a);
        if (h == UINT32_MAX) {
            not_held++;
            continue;
        }
        if (held[h].size != d->live_size[i])
            wrong_size++;
        if (held[h].seen++)
            dup++;
        if (d->live_stack[i] == MSAMP_WIRE_STACK_FULL)
            stack_full++;
        else
            per_site[held[h].site]++;
    }
    struct msamp_stats st;
    if (msamp_get_stats(&st) != 0)
        demo_fail("msamp_get_stats");
    line_start(&l, "msamp-demo faults");
    line_u64(&l, "live_entries", entries);
    line_u64(&l, "live_used", st.live_used);
    line_u64(&l, "dump_live_used", d->live_used);
    line_u64(&l, "live_capacity", d->live_capacity);
    line_u64(&l, "held", held_count);
    line_u64(&l, "not_held", not_held);
    line_u64(&l, "wrong_size", wrong_size);
    line_u64(&l, "dup", dup);
    line_u64(&l, "stack_full_entries", stack_full);
    line_u64(&l, "isr_calls", isr_calls);
    line_u64(&l, "isr_in_alloc", isr_in_alloc);
    line_emit(&l);
    for (unsigned s = 0; s < sites; s++) {
        line_start(&l, "msamp-demo faults-site site=");
        line_str(&l, site_name[s]);
        line_u64(&l, "live_entries", per_site[s]);
        line_emit(&l);
    }
    if (not_held != 0 || wrong_size != 0 || dup != 0 || entries != st.live_used || entries != d->live_used)
        demo_fail("faults: msamp's live table differs from the blocks the demo holds");
}
#else
int demo_faults_timer_start(uint32_t period_us, void (*fn)(void))
{
    return board_timer_start(period_us, fn);
}
#endif

int demo_faults_init(const struct msamp_config *cfg)
{
    struct msamp_config c = *cfg;
#if DEMO_FAULTS >= 2
    c.pin_interval = 1;
#endif
    int rc = msamp_init(&c);
    if (rc == 0)
        print_boot();
    return rc;
}

int demo_faults_flush(void)
{
#if DEMO_FAULTS >= 2
    /* The timer is stopped: the live table no longer moves. One more full pass, so the stream
     * ends with the complete live set however many records the full ring dropped. */
    if (msamp_snapshot() != 0)
        demo_fail("msamp_snapshot");
    for (unsigned i = 0; i < 512u; i++)
        if (msamp_poll() < 0)
            return -1;
    int rc = msamp_flush();
    if (rc < 0)
        return rc;
    check_live_table();
#endif
    return msamp_flush();
}
