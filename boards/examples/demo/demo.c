/*
 * The msamp demo firmware: a workload with allocation sites whose truth it counts itself, run on
 * any board of boards/. Sites (each a function that calls the allocator directly):
 *   cache_insert      a long-lived cache of CACHE_ENTRIES blocks, one entry replaced now and then
 *   leak_record       a slow leak: a small block every LEAK_EVERY iterations, never freed (up to
 *                     LEAK_LIMIT blocks: a run bounded by time leaks in step with the machine's speed)
 *   churn_scratch     temporary buffers of assorted sizes, freed at once
 *   grow_buffer       a buffer grown by realloc from 1 KiB to 4 KiB, then freed: allocated, every
 *                     block realloc returned (1, 2 and 4 KiB); in use, one allocation that moves
 *                     (a realloc chain, docs/DRAIN.md)
 *   deep_alloc        at the end of a chain of ten calls; the last DEEP_KEEP blocks stay live
 *   isr_make_packet   in the timer interrupt: a packet kept until ISR_KEEP ticks later
 *   oversize_request  every OVERSIZE_EVERY iterations, a block larger than the heap (the
 *                     allocator returns NULL) and one at msamp's giant-allocation guard (refused
 *                     before the allocator sees it): failures msamp reports, not allocations
 * At exit it prints (on the board console, off the binary stream) one line per site and size with
 * the exact number of allocations and of blocks still live, msamp's counters, the truth of the
 * heap's time to exhaustion (report_exhaustion), and "done".
 * Build-time knobs: DEMO_ITERATIONS, DEMO_INTERVAL (msamp's mean sampling interval), DEMO_RESEND_MS,
 * DEMO_TIMER_US, DEMO_MIN_MS (run at least this long), DEMO_OVERSIZE_EVERY, DEMO_LEAK_US (the leak
 * paced by msamp's clock, not by iterations), DEMO_SEED (msamp's seed, kept in the word
 * demo_seed of the image, which a copy of the ELF may carry another of: demo.h), and
 * DEMO_STALL_FROM/DEMO_STALL_TO:
 * iterations during which the demo stops calling msamp_poll(), as a drain that takes no bytes
 * would make a flow-controlled link do (the interval pinned, so that the ring overflows). DEMO_SMALL_RAM=1 (qemu-microbit: 16 KiB of RAM) scales the
 * workload to demo_heap.c's 9 KiB heap: 8 cache entries, 32 leaked blocks, 4 deep blocks kept, a
 * realloc chain from 256 bytes to 1 KiB, sampled every 128 bytes.
 * DEMO_HAL_TICK (Cortex-M boards): the firmware runs SysTick itself before msamp_init, as an STM32
 * HAL does (1 kHz, its interrupt counting a tick); 1: it gives msamp its tick
 * (msamp_arm_app_ticks, port/arm/README.md "The clock"), 2: a wrong one (microseconds counted as
 * ticks: a clock 1000 times too fast, which drain must call implausible), 3: none.
 */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "demo.h"
#include "msamp.h"
#include "msamp_port.h"
#include "msamp_transport.h"

#ifndef DEMO_ITERATIONS
#define DEMO_ITERATIONS 4000
#endif
#ifndef DEMO_INTERVAL
#define DEMO_INTERVAL (DEMO_SMALL_RAM ? 128 : 256)
#endif
#ifndef DEMO_RESEND_MS
#define DEMO_RESEND_MS 20
#endif
#ifndef DEMO_TIMER_US
#define DEMO_TIMER_US 200
#endif
/* Keep iterating past DEMO_ITERATIONS until this much time has passed (0: no minimum). */
#ifndef DEMO_MIN_MS
#define DEMO_MIN_MS 0
#endif
#ifndef DEMO_STALL_FROM
#define DEMO_STALL_FROM 0
#endif
#ifndef DEMO_STALL_TO
#define DEMO_STALL_TO 0
#endif
#ifndef DEMO_SEED
#define DEMO_SEED 12345
#endif
#ifndef DEMO_HAL_TICK
#define DEMO_HAL_TICK 0
#endif
const volatile uint64_t demo_seed = DEMO_SEED;

#define CACHE_ENTRIES (DEMO_SMALL_RAM ? 8 : 64)
#define CACHE_EVICT_EVERY 100
#ifndef LEAK_EVERY
#define LEAK_EVERY 12
#endif
/* Nonzero: leak_record leaks a block each time msamp's clock passes another DEMO_LEAK_US
 * microseconds of the main loop (as many as are due), not every LEAK_EVERY iterations: a leak
 * uniform in device time, however fast the iterations go (QEMU's clock is the host's). */
#ifndef DEMO_LEAK_US
#define DEMO_LEAK_US 0
#endif
#define LEAK_LIMIT (DEMO_SMALL_RAM ? 32u : 3000u)
#define LEAK_SIZE 48
#define GROW_EVERY 64
/* From 1 KiB: at the demo's intervals (256, 1024) the first block is sampled with probability
 * 0.98 or more, so drain sees (almost) every chain whole (a chain whose first block was not sampled
 * is counted again from its first sampled block); 256 bytes at 128 (DEMO_SMALL_RAM): 0.86. */
#define GROW_FROM (DEMO_SMALL_RAM ? 256 : 1024)
#define GROW_TO (DEMO_SMALL_RAM ? 1024 : 4096)
#define DEEP_EVERY 4
#define DEEP_KEEP (DEMO_SMALL_RAM ? 4 : 32)
#define DEEP_SIZE 160
#define ISR_KEEP 8
#define ISR_SIZE 80
#define MAX_SIZES 8
/* Failures are not sampled: every one is a FAIL record, which a 9600-baud link cannot carry at
 * the rate a QEMU main loop makes them (tests/link: 20000). */
#ifndef DEMO_OVERSIZE_EVERY
#define DEMO_OVERSIZE_EVERY 500
#endif
#define OVERSIZE_EVERY DEMO_OVERSIZE_EVERY
#define OVERSIZE_HEAP (768u * 1024u) /* more than demo_heap.c's 512 KiB */
#if MSAMP_CFG_GIANT_BYTES
#define OVERSIZE_GIANT ((size_t)MSAMP_CFG_GIANT_BYTES)
#else
#define OVERSIZE_GIANT ((size_t)2u << 20) /* no guard in this build: the heap fails it too */
#endif

/* The truth: exact counts per site and size, for the checks to compare drain's estimates with. */
enum site { CACHE, LEAK, CHURN, GROW, DEEP, ISR, SITES };
static const char *const site_names[SITES] = {
    "cache_insert", "leak_record", "churn_scratch", "grow_buffer", "deep_alloc", "isr_make_packet",
};
struct size_truth {
    uint32_t size, allocs, live;
};
/* Each site is updated by one context only (ISR by the interrupt, the rest by the main loop). */
static struct size_truth truth[SITES][MAX_SIZES];

static struct size_truth *truth_of(enum site s, size_t size)
{
    for (unsigned i = 0; i < MAX_SIZES; i++) {
        struct size_truth *t = &truth[s][i];
        if (t->size == size)
            return t;
        if (t->size == 0) {
            t->size = (uint32_t)size;
            return t;
        }
    }
    demo_fail("too many sizes at one site");
}

static void truth_alloc(enum site s, size_t size)
{
    struct size_truth *t = truth_of(s, size);
    t->allocs++;
    t->live++;
}

static void truth_free(enum site s, size_t size)
{
    truth_of(s, size)->live--;
}

static volatile uint8_t sink;

static void *checked(void *p)
{
    if (p == NULL)
        demo_fail("out of heap");
    sink = *(volatile uint8_t *)p;
    return p;
}

/* Requests that fail: their count, the truth msamp's FAIL reports are checked against. */
static uint32_t oversize_failed;

static void oversize_one(size_t n)
{
    void *p = malloc(n);
    if (p == NULL) {
        oversize_failed++;
        return;
    }
    sink = *(volatile uint8_t *)p; /* a heap larger than the demo's: an ordinary allocation */
    free(p);
    demo_fail("oversize request met");
}

__attribute__((noinline)) static void oversize_request(void)
{
    oversize_one(OVERSIZE_HEAP);
    oversize_one(OVERSIZE_GIANT);
}

/* Touch a block so the compiler keeps the allocation. */
static void touch(void *p, size_t n)
{
    volatile uint8_t *b = p;
    b[0] = (uint8_t)n;
    b[n - 1] = (uint8_t)(n >> 8);
}

static void *cache[CACHE_ENTRIES];

static size_t cache_size(unsigned i)
{
    return 192u + (i % 4u) * 64u;
}

__attribute__((noinline)) static void cache_insert(unsigned i)
{
    size_t n = cache_size(i);
    cache[i] = checked(malloc(n));
    touch(cache[i], n);
    truth_alloc(CACHE, n);
}

static void cache_evict(unsigned i)
{
    free(cache[i]);
    truth_free(CACHE, cache_size(i));
    cache[i] = NULL;
}

/* A leaked block holds its own record (the time-to-exhaustion truth, report_exhaustion): the
 * block before it and when it was allocated, on msamp's clock. No RAM beyond the blocks. */
struct leak_block {
    struct leak_block *prev;
    uint64_t ts;
    uint32_t it;
};
_Static_assert(sizeof(struct leak_block) <= LEAK_SIZE, "a leaked block holds its record");
static struct leak_block *leak_last;

__attribute__((noinline)) static void leak_record(uint32_t it)
{
    static uint32_t leaked;
    if (leaked++ >= LEAK_LIMIT)
        return;
    struct leak_block *b = checked(malloc(LEAK_SIZE));
    b->prev = leak_last;
    b->ts = msamp_port_time();
    b->it = it;
    leak_last = b;
    truth_alloc(LEAK, LEAK_SIZE);
}

static const uint16_t churn_sizes[] = {24, 40, 96, 200, 520, 1100};
static uint32_t churn_state = 1;

__attribute__((noinline)) static void churn_scratch(void)
{
    churn_state = churn_state * 1103515245u + 12345u;
    size_t n = churn_sizes[(churn_state >> 16) % (sizeof churn_sizes / sizeof churn_sizes[0])];
    void *p = checked(malloc(n));
    touch(p, n);
    truth_alloc(CHURN, n);
    free(p);
    truth_free(CHURN, n);
}

/* A realloc chain (docs/DRAIN.md "Realloc chains"): each block realloc returns is an allocation
 * (as peers count it), the one it replaced no longer live. */
__attribute__((noinline)) static void grow_buffer(void)
{
    uint8_t *buf = NULL;
    size_t have = 0;
    for (size_t n = GROW_FROM; n <= GROW_TO; n *= 2) {
        uint8_t *next = checked(realloc(buf, n));
        touch(next, n);
        truth_alloc(GROW, n);
        if (have != 0)
            truth_free(GROW, have);
        buf = next;
        have = n;
    }
    free(buf);
    truth_free(GROW, have);
}

static void *deep_blocks[DEEP_KEEP];
static unsigned deep_next;
static volatile uint32_t depth_sink;

__attribute__((noinline)) static void deep_alloc(void)
{
    unsigned i = deep_next++ % DEEP_KEEP;
    if (deep_blocks[i] != NULL) {
        free(deep_blocks[i]);
        truth_free(DEEP, DEEP_SIZE);
    }
    deep_blocks[i] = checked(malloc(DEEP_SIZE));
    touch(deep_blocks[i], DEEP_SIZE);
    truth_alloc(DEEP, DEEP_SIZE);
}

/* A chain of distinct calls (no recursion); the store after each call keeps it a real call. */
#define DEEP_LINK(name, callee)                                                                    \
    __attribute__((noinline)) static void name(uint32_t v)                                         \
    {                                                                                              \
        callee(v + 1);                                                                             \
        depth_sink = v;                                                                            \
    }
__attribute__((noinline)) static void deep_9(uint32_t v)
{
    deep_alloc();
    depth_sink = v;
}
DEEP_LINK(deep_8, deep_9)
DEEP_LINK(deep_7, deep_8)
DEEP_LINK(deep_6, deep_7)
DEEP_LINK(deep_5, deep_6)
DEEP_LINK(deep_4, deep_5)
DEEP_LINK(deep_3, deep_4)
DEEP_LINK(deep_2, deep_3)
DEEP_LINK(deep_1, deep_2)

static void *isr_packets[ISR_KEEP];
static volatile uint32_t isr_ticks;

__attribute__((noinline)) static void isr_make_packet(void)
{
    unsigned i = isr_ticks % ISR_KEEP;
    if (isr_packets[i] != NULL) {
        free(isr_packets[i]);
        truth_free(ISR, ISR_SIZE);
    }
    isr_packets[i] = checked(malloc(ISR_SIZE));
    touch(isr_packets[i], ISR_SIZE);
    truth_alloc(ISR, ISR_SIZE);
}

/* The timer interrupt handler. */
__attribute__((noinline)) static void demo_timer_isr(void)
{
    isr_make_packet();
    isr_ticks = isr_ticks + 1;
}

_Noreturn void demo_fail(const char *why)
{
    struct demo_line l;
    line_start(&l, "msamp-demo FAIL: ");
    line_str(&l, why);
    line_emit(&l);
    board_exit(1);
}

void line_start(struct demo_line *l, const char *text)
{
    l->len = 0;
    line_str(l, text);
}

void line_str(struct demo_line *l, const char *text)
{
    while (*text != '\0' && l->len < sizeof l->buf - 2)
        l->buf[l->len++] = *text++;
}

void line_u64(struct demo_line *l, const char *key, uint64_t v)
{
    char digits[21];
    digits[board_put_dec(digits, v)] = '\0';
    line_str(l, " ");
    line_str(l, key);
    line_str(l, "=");
    line_str(l, digits);
}

void line_emit(struct demo_line *l)
{
    l->buf[l->len++] = '\n';
    l->buf[l->len] = '\0';
    board_console(l->buf);
}

/* The allocator's own figures (what drain's heap health must equal): the hook msamp asks. */
static void report_heap(void)
{
    struct demo_line l;
    struct msamp_heap_stats h;
    msamp_port_heap_stats(&h);
    line_start(&l, "msamp-demo heap");
    line_u64(&l, "free", h.free);
    line_u64(&l, "min_free", h.min_free);
    line_u64(&l, "largest_free", h.largest_free);
    line_u64(&l, "free_blocks", h.free_blocks);
    line_u64(&l, "total", h.total);
    line_emit(&l);
}

static void report(uint64_t ticks, uint32_t iterations)
{
    struct demo_line l;
    line_start(&l, "msamp-demo run transport=");
    line_str(&l, msamp_transport_name());
    line_u64(&l, "interval", DEMO_INTERVAL);
    line_u64(&l, "iterations", iterations);
    line_u64(&l, "isr_ticks", isr_ticks);
    line_u64(&l, "us", ticks * 1000000u / board_tick_hz());
    line_u64(&l, "heap_in_use", demo_heap_in_use());
    line_u64(&l, "seed", demo_seed);
    line_emit(&l);
    /* What the adaptive interval did (docs/ADAPTIVE.md). */
    struct msamp_stats as;
    if (msamp_get_stats(&as) == 0) {
        const struct msamp_stats *a = &as;
        line_start(&l, "msamp-demo adapt");
        line_u64(&l, "interval", a->interval);
        line_u64(&l, "raises", a->raises);
        line_u64(&l, "lowers", a->lowers);
        line_u64(&l, "thinned", a->thinned);
        line_u64(&l, "live_capacity", a->live_capacity);
        line_u64(&l, "live_used", a->live_used);
        line_emit(&l);
    }
    for (unsigned s = 0; s < SITES; s++) {
        for (unsigned i = 0; i < MAX_SIZES && truth[s][i].size != 0; i++) {
            line_start(&l, "msamp-demo truth site=");
            line_str(&l, site_names[s]);
            line_u64(&l, "size", truth[s][i].size);
            line_u64(&l, "allocs", truth[s][i].allocs);
            line_u64(&l, "live", truth[s][i].live);
            line_emit(&l);
        }
    }
    line_start(&l, "msamp-demo failures");
    line_u64(&l, "requests", oversize_failed);
    line_u64(&l, "giant_limit", MSAMP_CFG_GIANT_BYTES);
    line_emit(&l);
    struct msamp_stats st;
    if (msamp_get_stats(&st) != 0)
        demo_fail("msamp_get_stats");
    line_start(&l, "msamp-demo stats");
    line_u64(&l, "samples", st.samples);
    line_u64(&l, "frees", st.frees);
    line_u64(&l, "ring_records", st.ring_records);
    line_u64(&l, "ring_bytes", st.ring_bytes);
    line_u64(&l, "live_full", st.live_full);
    line_u64(&l, "stack_full", st.stack_full);
    line_u64(&l, "reentrant", st.reentrant);
    line_u64(&l, "truncated", st.truncated);
    line_u64(&l, "no_frame", st.no_frame);
    line_u64(&l, "failed", st.failed);
    line_u64(&l, "refused", st.refused);
    line_u64(&l, "live_used", st.live_used);
    line_u64(&l, "stacks_used", st.stacks_used);
    line_emit(&l);
#if MSAMP_CFG_CONTROL
    /* The down-channel (docs/CONTROL.md): commands carried out, repeats, frames ignored. */
    line_start(&l, "msamp-demo control");
    line_u64(&l, "commands", st.commands);
    line_u64(&l, "repeated", st.commands_repeated);
    line_u64(&l, "bad", st.commands_bad);
    line_u64(&l, "refused", st.commands_refused);
    line_u64(&l, "interval", st.interval);
    line_u64(&l, "enabled", st.enabled);
    line_emit(&l);
#endif
}

/* The truth of drain's time to exhaustion (docs/VERDICTS.md "Time to exhaustion"): the heap's
 * free bytes at the end (what the last HEAP record says) over the leak's rate in the allocator's
 * bytes (headers and rounding included: demo_heap_block_bytes) per second of msamp's clock over
 * the session's recent half, [from + (to - from) / 2, to], from before msamp_init to before
 * msamp_end (drain's window starts at a bin boundary at most 1/32 of the session past the
 * middle: the leak is uniform in time over the window, first_half says how nearly).
 *   us      the true time to exhaustion in microseconds (absent: nothing leaked in the window)
 *   leaked  blocks leaked in the window; bytes and heap_bytes their requested and allocator's
 *   first_half  of those, the ones in the window's first half
 *   from, to, loop_end  msamp's clock at the start, the end, and the main loop's end; tick_hz */
static void report_exhaustion(uint64_t from, uint64_t loop_end, uint64_t to)
{
    uint64_t mid = from + (to - from) / 2, quarter = mid + (to - mid) / 2, n = 0, first = 0,
             req = 0, heap = 0, hz = msamp_port_time_hz();
    for (const struct leak_block *b = leak_last; b != NULL && b->ts >= mid; b = b->prev) {
        n++;
        first += b->ts < quarter;
        req += LEAK_SIZE;
        heap += demo_heap_block_bytes(b);
    }
    struct msamp_heap_stats h;
    msamp_port_heap_stats(&h);
    struct demo_line l;
    line_start(&l, "msamp-demo exhaustion");
    line_u64(&l, "free", h.free);
    if (heap != 0) { /* free * window / heap ticks (free and the window each < 2^32) */
        uint64_t t = (uint64_t)h.free * (to - mid) / heap;
        line_u64(&l, "us", t / hz * 1000000u + t % hz * 1000000u / hz);
    }
    const struct {
        const char *key;
        uint64_t v;
    } rest[] = {{"leaked", n},         {"bytes", req}, {"heap_bytes", heap},
                {"first_half", first}, {"from", from}, {"loop_end", loop_end},
                {"to", to},            {"tick_hz", hz}};
    for (unsigned i = 0; i < sizeof rest / sizeof rest[0]; i++)
        line_u64(&l, rest[i].key, rest[i].v);
    line_emit(&l);
}

/* Whether a leaked block is due (DEMO_LEAK_US): one each period of msamp's clock from the first
 * call (the main loop's start). */
static int leak_due(void)
{
    static uint64_t next, period;
    uint64_t now = msamp_port_time();
    if (period == 0) {
        period = msamp_port_time_hz() * DEMO_LEAK_US / 1000000u;
        period += period == 0;
        next = now;
    }
    if (now < next)
        return 0;
    next += period;
    return 1;
}

/* Commands from the host (docs/CONTROL.md) keep the run going: 1 while one came in the last
 * second, up to 10 s in all, so the host's next commands and their acks get through. A run that
 * is sent none ends as before. */
static int commanded(uint64_t start)
{
#if MSAMP_CFG_CONTROL
    static uint32_t seen;
    static uint64_t until;
    struct msamp_stats st;
    uint64_t now = board_ticks(), hz = board_tick_hz();
    if (msamp_get_stats(&st) == 0 &&
        st.commands + st.commands_repeated + st.commands_refused != seen) {
        seen = st.commands + st.commands_repeated + st.commands_refused;
        until = now + hz;
    }
    return now < until && now - start < 10u * hz;
#else
    (void)start;
    return 0;
#endif
}

#if DEMO_HAL_TICK
#if !defined(__ARM_ARCH_PROFILE) || __ARM_ARCH_PROFILE != 'M'
#error "DEMO_HAL_TICK: a Cortex-M board's"
#endif
#include "msamp_arm.h"
void SysTick_Handler(void);
/* The application's tick, as HAL_InitTick starts it: reload CPU_HZ / 1000 - 1, the processor
 * clock, its interrupt (SysTick_Handler, the vector start.S names), interrupts enabled. */
static volatile uint32_t hal_ticks;

void SysTick_Handler(void)
{
    hal_ticks = hal_ticks + 1;
}

#if DEMO_HAL_TICK == 1
uint32_t msamp_arm_app_ticks(void)
{
    return hal_ticks;
}
#elif DEMO_HAL_TICK == 2
uint32_t msamp_arm_app_ticks(void)
{
    return hal_ticks * 1000u;
}
#endif

static void hal_tick_start(void)
{
    *(volatile uint32_t *)0xe000e014u = MSAMP_ARM_CPU_HZ / 1000u - 1u; /* SYST_RVR */
    *(volatile uint32_t *)0xe000e018u = 0;                             /* SYST_CVR */
    *(volatile uint32_t *)0xe000e010u = 7u; /* SYST_CSR: processor clock, interrupt, enabled */
    __asm__ volatile("cpsie i" : : : "memory");
}
#endif

static int stalled(uint32_t it)
{
    static const uint32_t from = DEMO_STALL_FROM, to = DEMO_STALL_TO;
    return it >= from && it < to;
}

/* Whether the ring is out: a paced link (MSAMP_UART_BAUD) takes it over many msamp_flush() calls. */
static int ring_out(void)
{
    struct msamp_stats st;
    if (msamp_get_stats(&st) != 0)
        demo_fail("msamp_get_stats");
    return st.ring_used == 0;
}

int main(void)
{
    board_init();
#if DEMO_HAL_TICK
    hal_tick_start();
#endif
    /* A stalled build pins the interval: its ring is to overflow, and the link-aware device
     * (docs/ADAPTIVE.md "The link") would raise the interval instead. */
    struct msamp_config cfg = {.interval = DEMO_INTERVAL,
                               .resend_ms = DEMO_RESEND_MS,
                               .seed = demo_seed,
                               .pin_interval = DEMO_STALL_TO > DEMO_STALL_FROM};
    uint64_t session_from = msamp_port_time();
    if (msamp_init(&cfg) != 0)
        demo_fail("msamp_init");

    uint64_t start = board_ticks();
    for (unsigned i = 0; i < CACHE_ENTRIES; i++)
        cache_insert(i);
    if (board_timer_start(DEMO_TIMER_US, demo_timer_isr) != 0)
        board_console("msamp-demo note: no timer interrupt on this board: no isr_make_packet site\n");

    uint64_t min_ticks = board_tick_hz() / 1000u * DEMO_MIN_MS;
    uint32_t it;
    for (it = 0; it < DEMO_ITERATIONS || board_ticks() - start < min_ticks || commanded(start); it++) {
        churn_scratch();
        churn_scratch();
        if (it % DEEP_EVERY == 0)
            deep_1(it);
        if (DEMO_LEAK_US) {
            while (leak_due())
                leak_record(it);
        } else if (it % LEAK_EVERY == 0) {
            leak_record(it);
        }
        if (it % GROW_EVERY == 0)
            grow_buffer();
        if (it % OVERSIZE_EVERY == OVERSIZE_EVERY - 1)
            oversize_request();
        if (it % CACHE_EVICT_EVERY == 0) {
            unsigned i = (it / CACHE_EVICT_EVERY) % CACHE_ENTRIES;
            cache_evict(i);
            cache_insert(i);
        }
        if (!stalled(it) && msamp_poll() < 0)
            demo_fail("msamp_poll");
    }
    board_timer_stop();
    uint64_t ticks = board_ticks() - start, loop_end = msamp_port_time();

    do { /* the faults builds' final pass and live-table check (demo_faults.h) */
        if (msamp_flush() < 0)
            demo_fail("flush");
    } while (!ring_out());
    report(ticks, it); /* msamp's state as the run left it (sampling still enabled) */
    report_heap();     /* as msamp_end's HEAP record will say it: nothing allocates in between */
    /* The shutdown: the stream's END (the session's totals) after what the ring holds. */
    uint64_t session_to = msamp_port_time();
    if (msamp_end() < 0)
        demo_fail("end");
    report_exhaustion(session_from, loop_end, session_to);
    while (!ring_out()) /* after END, the ring's bytes only (the faults builds' pass is done) */
        if ((msamp_flush)() < 0)
            demo_fail("flush");
    board_console("msamp-demo done\n");
    return 0;
}
