/*
 * The walker test, built for each architecture port and compiler mode and run as a static Linux
 * user program (under qemu-user, or natively on x86-64), with msamp's port linked in as on a board:
 *  1. a real call chain (plain frames, a shrink-wrapped function, a frame over 32 KiB and one over
 *     64 KiB, a dynamic allocation) walked through msamp_port_walk() must give back exactly the
 *     return addresses the functions saw (__builtin_return_address);
 *  2. TEST_ITERS walks over deliberately corrupted stacks (random words, pointers outside the
 *     stack, loops, misaligned links, bad return addresses) in a region fenced by inaccessible
 *     pages: any load outside the bounds kills the test with SIGSEGV; where the corruption leaves
 *     a valid prefix, the walker must report exactly that prefix.
 *  3. (a scanner with a cache of descriptions by return address, MIPS64) a chain of calls whose
 *     return addresses the cache's hash puts in one row of its first way, more of them than it has
 *     ways, walked again and again: on an empty cache no frame is read from code again after the
 *     first walk, on one the corrupted walks filled none after a few (its evictions are random),
 *     and every walk gives the chain's addresses.
 * Prints one summary line; exits 0 on success.
 */
#include <stddef.h>
#include <stdint.h>

#include "msamp_port.h"
#include "walk_test.h"

#ifndef TEST_ITERS
#define TEST_ITERS 100000
#endif
#define FENCE 65536u  /* inaccessible bytes each side of the corrupted-stack region */
#define REGION 16384u /* the region the corrupted walks may read */
#define CAP 32u       /* the callback's depth cap, as the core's MSAMP_CFG_MAX_DEPTH */

long t_syscall(long nr, long a, long b, long c, long d, long e, long f);
int main(void);

extern const char __msamp_text_lo[], __msamp_text_hi[];

static void out(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0')
        n++;
    t_syscall(SYS_WRITE, 1, (long)s, (long)n, 0, 0, 0);
}

static void out_num(const char *label, uint64_t v, int hex)
{
    char buf[24];
    int i = (int)sizeof buf - 1;
    buf[i] = '\0';
    do {
        unsigned d = (unsigned)(v % (hex ? 16u : 10u));
        buf[--i] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
        v /= hex ? 16u : 10u;
    } while (v != 0 && i > 0);
    out(label);
    out(buf + i);
}

static _Noreturn void fail(const char *what, unsigned iter)
{
    out("FAIL " TEST_NAME ": ");
    out(what);
    out_num(" (iteration ", iter, 0);
    out(")\n");
    t_syscall(SYS_EXIT, 1, 0, 0, 0, 0, 0);
    for (;;) {
    }
}

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* ---- 1. the real call chain ---- */

static uintptr_t got[256];
static unsigned ngot;
static volatile uintptr_t expect[8]; /* return address each chain function saw */
static volatile uintptr_t frames[8]; /* frame address of each chain function, main last */
static volatile int sink;
static int live_mode;
static uint64_t live_pcs;

static unsigned noob; /* walks that said their start lay outside the stack */

static int collect(void *arg, uintptr_t pc)
{
    (void)arg;
    if (pc == MSAMP_WALK_OUT_OF_BOUNDS) {
        noob++;
        return 0;
    }
    got[ngot++] = pc;
    return ngot < CAP;
}

#define RA() ((uintptr_t)__builtin_return_address(0))

/* Stands for the msamp core between the wrapper and the port. */
TEST_NOINLINE int core(const void *frame);
TEST_NOINLINE int wrapper(int x);
TEST_NOINLINE int f_dynamic(int n);
TEST_NOINLINE int f_big(int n);
TEST_NOINLINE int f_huge(int n);
TEST_NOINLINE int f_shrink(int n);
TEST_NOINLINE int f_plain(int n);

static void corrupt_live(const void *frame);

TEST_NOINLINE int core(const void *frame)
{
    if (live_mode)
        corrupt_live(frame);
    ngot = 0;
    msamp_port_walk(frame, collect, 0);
    return (int)ngot;
}

/* Like __wrap_malloc: passes its own frame address. */
TEST_NOINLINE int wrapper(int x)
{
    expect[0] = RA();
    frames[0] = (uintptr_t)__builtin_frame_address(0);
    int r = core(__builtin_frame_address(0));
    sink = r;
    return r + x;
}

TEST_NOINLINE int f_dynamic(int n)
{
    expect[1] = RA();
    frames[1] = (uintptr_t)__builtin_frame_address(0);
    volatile char *buf = __builtin_alloca((size_t)n + 16u);
    buf[n] = (char)n;
    int r = wrapper(n);
    return r + buf[n];
}

TEST_NOINLINE int f_big(int n)
{
    volatile char big[40000];
    expect[2] = RA();
    frames[2] = (uintptr_t)__builtin_frame_address(0);
    big[n] = 1;
    int r = f_dynamic(n);
    return r + big[n];
}

TEST_NOINLINE int f_huge(int n)
{
    volatile char huge[200000];
    expect[3] = RA();
    frames[3] = (uintptr_t)__builtin_frame_address(0);
    huge[n] = 1;
    int r = f_big(n);
    return r + huge[n];
}

/* The early return lets the compiler put the prologue after the test. */
TEST_NOINLINE int f_shrink(int n)
{
    if (n < 0)
        return n;
    expect[4] = RA();
    frames[4] = (uintptr_t)__builtin_frame_address(0);
    return f_huge(n) + 1;
}

/* Builds a 64-bit constant before its call (MIPS: lui/ori/dsll whose immediates, read as
 * register fields, name sp and s8: a scanner must not take them for frame writes). */
TEST_NOINLINE int f_plain(int n)
{
    expect[5] = RA();
    frames[5] = (uintptr_t)__builtin_frame_address(0);
    uint64_t h = (uint64_t)(unsigned)n * 0x9E3779B97F4A7C15ull;
    sink = (int)(h >> 40);
    return f_shrink(n) + 1;
}

#define CHAIN 6u

static void check_chain(void)
{
    volatile int n = 5;
    frames[CHAIN] = (uintptr_t)__builtin_frame_address(0);
    f_plain(n);
    if (ngot < CHAIN)
        fail("real chain: too few frames", ngot);
    for (unsigned i = 0; i < CHAIN; i++)
        if (got[i] != (expect[i] & ~(uintptr_t)TEST_PC_TAG))
            fail("real chain: wrong return address at depth", i);
}

/* ---- 2. corrupted stacks ---- */

static uintptr_t lo, hi;
static uintptr_t junk(void);

/* Inside the live chain (called by core()): overwrites one stack word at or above the wrapper's
 * frame with junk, walks, puts the word back. Return address i is saved below frame i + 1, so
 * every pc whose frames lie below the damage must still come out right. */
static void corrupt_live(const void *frame)
{
    extern const char __msamp_stack_hi[];
    uintptr_t stack_hi = (uintptr_t)frames[CHAIN] + 64u;
    if (stack_hi > (uintptr_t)__msamp_stack_hi)
        stack_hi = (uintptr_t)__msamp_stack_hi;
    for (unsigned iter = 0; iter < TEST_ITERS; iter++) {
        unsigned near = (unsigned)(rnd() % (CHAIN + 1));
        uintptr_t x = (frames[near] + sizeof(uintptr_t) * (uintptr_t)(rnd() % 16)) -
                      8u * sizeof(uintptr_t);
        x &= ~(uintptr_t)(sizeof(uintptr_t) - 1);
        if (x < frames[0] || x >= stack_hi)
            continue;
        uintptr_t saved = *(volatile uintptr_t *)x;
        uintptr_t bad = junk();
        if (rnd() % 4 == 0) /* a loop: a pointer to a lower frame or to itself */
            bad = rnd() % 2 ? x : frames[rnd() % (near + 1)];
        *(volatile uintptr_t *)x = bad;
        ngot = 0;
        msamp_port_walk(frame, collect, 0);
        *(volatile uintptr_t *)x = saved;
        live_pcs += ngot;
        unsigned intact = 0;
        while (intact < CHAIN && frames[intact + 1] <= x)
            intact++;
        if (ngot < intact)
            fail("live chain: walk stopped before the damage", iter);
        for (unsigned i = 0; i < intact; i++)
            if (got[i] != (expect[i] & ~(uintptr_t)TEST_PC_TAG))
                fail("live chain: wrong return address below the damage", iter);
    }
}

static uintptr_t text_pc(void)
{
    uintptr_t t0 = (uintptr_t)__msamp_text_lo, t1 = (uintptr_t)__msamp_text_hi;
    return (t0 + (uintptr_t)(rnd() % (t1 - t0))) & ~(uintptr_t)3;
}

/* A word that may fool a walker: random, a stack address, a code address, zero. */
static uintptr_t junk(void)
{
    switch (rnd() % 5) {
    case 0:
        return (uintptr_t)rnd();
    case 1:
        return lo + (uintptr_t)(rnd() % REGION);
    case 2:
        return (lo + (uintptr_t)(rnd() % REGION)) & ~(uintptr_t)(sizeof(uintptr_t) - 1);
    case 3:
        return text_pc() | (uintptr_t)(rnd() & TEST_PC_TAG);
    default:
        return 0;
    }
}

static void scribble(unsigned words)
{
    for (unsigned i = 0; i < words; i++) {
        uintptr_t at = lo + (uintptr_t)(rnd() % (REGION / sizeof(uintptr_t))) * sizeof(uintptr_t);
        *(uintptr_t *)at = junk();
    }
}

static void region_setup(void)
{
    long p = t_syscall(SYS_MMAP, 0, (long)(FENCE + REGION + FENCE), 0 /* PROT_NONE */,
                       MAP_PRIVATE_ANON, -1, 0);
    if (p < 0 && p > -4096)
        fail("mmap", 0);
    if (t_syscall(SYS_MPROTECT, p + (long)FENCE, REGION, 3 /* read, write */, 0, 0, 0) != 0)
        fail("mprotect", 0);
    lo = (uintptr_t)p + FENCE;
    hi = lo + REGION;
    for (uintptr_t a = lo; a < hi; a += sizeof(uintptr_t))
        *(uintptr_t *)a = junk();
}

static uint64_t total_pcs;

#if TEST_FRAME_WALKER
/* Builds a chain of frame records, corrupts one link or return address, and checks the walk. */
static void corrupt_once(unsigned iter)
{
    uintptr_t fp[16], pc[16];
    unsigned k = 1 + (unsigned)(rnd() % 12);
    uintptr_t at = lo + REC_BELOW + (uintptr_t)(rnd() % 64) * sizeof(uintptr_t);
    unsigned n;

    scribble(8);
    for (n = 0; n < k; n++) {
        if (at + REC_ABOVE > hi)
            break;
        fp[n] = at;
        pc[n] = text_pc() | (uintptr_t)(rnd() & TEST_PC_TAG);
        at += REC_BELOW + REC_ABOVE + (uintptr_t)(rnd() % 32) * sizeof(uintptr_t);
    }
    k = n;
    for (n = 0; n < k; n++)
        rec_write(fp[n], n + 1 < k ? fp[n + 1] : 0, pc[n]);

    unsigned c = (unsigned)(rnd() % k), kind = (unsigned)(rnd() % 8);
    unsigned exact = 0, atleast = 0; /* expected count: exactly `exact` or at least `atleast` */
    uintptr_t link = 0;
    switch (kind) {
    case 0: /* random link */
        link = junk();
        atleast = c + 1;
        break;
    case 1: /* outside the stack: below it, or a record straddling or beyond the top */
        link = rnd() % 2 ? lo - sizeof(uintptr_t) * (1 + rnd() % 64)
                         : hi - REC_ABOVE + sizeof(uintptr_t) * (1 + rnd() % 64);
        exact = c + 1;
        break;
    case 2: /* a loop back to this frame or an earlier one */
        link = fp[rnd() % (c + 1)];
        exact = c + 1;
        break;
    case 3: /* misaligned */
        link = fp[c] + sizeof(uintptr_t) + 1 + (uintptr_t)(rnd() % (sizeof(uintptr_t) - 1));
        exact = c + 1;
        break;
    case 4: /* a return address no code has: zero, outside the code, an EXC_RETURN */
        exact = c;
        break;
    case 5: /* the start itself outside the stack */
        exact = 0;
        break;
    default: /* intact */
        exact = k;
        break;
    }
    if (kind == 4) {
        uintptr_t bad[3] = {0, (uintptr_t)__msamp_text_hi + 4u * (uintptr_t)(rnd() % 64),
                            (uintptr_t)0xfffffff9u};
        rec_write(fp[c], c + 1 < k ? fp[c + 1] : 0, bad[rnd() % 3]);
    } else if (kind < 4) {
        rec_write(fp[c], link, pc[c]);
    }

    uintptr_t start = kind == 5 ? (rnd() % 2 ? hi + REC_BELOW : lo - sizeof(uintptr_t)) : fp[0];
    ngot = 0;
    noob = 0;
    walk_range(start, lo, hi, collect, 0);
    total_pcs += ngot;
    /* A start outside the stack is said (MSAMP_WALK_OUT_OF_BOUNDS, the core counts it), once;
     * any other walk never says it. */
    if (noob != (kind == 5))
        fail(kind == 5 ? "start outside the stack not reported as such" : "out-of-bounds reported for a start inside the stack", iter);
    if (ngot > CAP)
        fail("callback cap overrun", iter);
    unsigned want = exact ? exact : atleast;
    if (want > CAP)
        want = CAP;
    if (kind == 0 ? ngot < want : ngot != (exact > CAP ? CAP : exact))
        fail("corrupted chain: wrong frame count", iter);
    for (unsigned i = 0; i < want && i < ngot; i++)
        if (got[i] != (pc[i] & ~(uintptr_t)TEST_PC_TAG))
            fail("corrupted chain: wrong return address", iter);
}
#else
/* A scanning walker: start from random code positions and register values over junk. */
static void corrupt_once(unsigned iter)
{
    scribble(16);
    ngot = 0;
    walk_random(lo, hi, junk, text_pc, collect, 0);
    total_pcs += ngot;
    if (ngot > CAP)
        fail("callback cap overrun", iter);
#if TEST_ARM_CACHE
    if (ref_diff != 0)
        fail("cache: a forged walk differs from the interpreter's", iter);
#endif
}
#endif

/* ---- 3. a scanner's cache (MIPS64), the exidx walker's unwind-entry cache (ARM) ---- */

#if TEST_CACHE || TEST_ARM_CACHE
#define HOPS 256u   /* distinct call sites: more than enough to find HOP_CHAIN in one row */
#define HOP_CHAIN 6 /* return addresses in one row: more than the cache's ways */
#define SETTLED 64u /* walks that must read no code once the cache has settled */

static int (*hop_next[HOP_CHAIN])(int);
static uintptr_t hop_ra[HOPS]; /* each hop's return address into its one call site */
static volatile uintptr_t probe_ra;

/* Hops: distinct functions (the constant keeps identical-code folding away), one call each. */
#define HOP(n)                                                                                     \
    TEST_NOINLINE static int hop_##n(int d)                                                        \
    {                                                                                              \
        int r = hop_next[d](d + 1);                                                                \
        return r + n;                                                                              \
    }
#define HOP4(p) HOP(p##0) HOP(p##1) HOP(p##2) HOP(p##3)
#define HOP16(p) HOP4(p##0) HOP4(p##1) HOP4(p##2) HOP4(p##3)
#define HOP64(p) HOP16(p##0) HOP16(p##1) HOP16(p##2) HOP16(p##3)
HOP64(10) HOP64(11) HOP64(12) HOP64(13)
#define HOP_AT(n) hop_##n,
#define HOP_AT4(p) HOP_AT(p##0) HOP_AT(p##1) HOP_AT(p##2) HOP_AT(p##3)
#define HOP_AT16(p) HOP_AT4(p##0) HOP_AT4(p##1) HOP_AT4(p##2) HOP_AT4(p##3)
#define HOP_AT64(p) HOP_AT16(p##0) HOP_AT16(p##1) HOP_AT16(p##2) HOP_AT16(p##3)
static int (*const hops[HOPS])(int) = {HOP_AT64(10) HOP_AT64(11) HOP_AT64(12) HOP_AT64(13)};

TEST_NOINLINE static int hop_probe(int d)
{
    probe_ra = RA();
    return d;
}

/* The chain's end, as the wrapper: the walk reports the hops' return addresses, last first. */
TEST_NOINLINE static int hop_leaf(int d)
{
    int r = core(__builtin_frame_address(0));
    sink = r;
    return r + d;
}

/* Finds every hop's return address, then HOP_CHAIN hops whose return addresses the cache puts in
 * one row (of its first way) and chains them: hops[chain[0]] walks them. Returns that row. */
static unsigned chain_in_row(unsigned chain[HOP_CHAIN])
{
    unsigned best = 0, best_n = 0;

    for (unsigned i = 0; i < HOPS; i++) {
        hop_next[0] = hop_probe;
        hops[i](0);
        hop_ra[i] = probe_ra;
    }
    /* The row holding most of the hops' return addresses. */
    for (unsigned i = 0; i < HOPS; i++) {
        unsigned n = 0;
        for (unsigned j = 0; j < HOPS; j++)
            n += cache_row(hop_ra[j]) == cache_row(hop_ra[i]);
        if (n > best_n) {
            best_n = n;
            best = i;
        }
    }
    if (best_n < HOP_CHAIN)
        fail("cache: too few return addresses share a row", best_n);
    for (unsigned i = 0, n = 0; i < HOPS && n < HOP_CHAIN; i++)
        if (cache_row(hop_ra[i]) == cache_row(hop_ra[best]))
            chain[n++] = i;
    for (unsigned d = 0; d + 1 < HOP_CHAIN; d++)
        hop_next[d] = hops[chain[d + 1]];
    hop_next[HOP_CHAIN - 1] = hop_leaf;
    return cache_row(hop_ra[best]);
}

/* A failed cache check: "FAIL name: cache WHEN: n", what n counts, then cache_fail_end(). */
static void cache_fail(const char *when, unsigned long n)
{
    out("FAIL " TEST_NAME ": cache ");
    out(when);
    out_num(": ", n, 0);
}

static _Noreturn void cache_fail_end(void)
{
    out(")\n");
    t_syscall(SYS_EXIT, 1, 0, 0, 0, 0, 0);
    for (;;) {
    }
}

/* Walks the chain: every walk must give its return addresses. */
static void walk_chain(const unsigned chain[HOP_CHAIN], unsigned walk)
{
    hops[chain[0]](0);
    if (ngot < HOP_CHAIN + 1u)
        fail("cache: too few frames", walk);
    for (unsigned d = 0; d < HOP_CHAIN; d++)
        if (got[d] != (hop_ra[chain[HOP_CHAIN - 1 - d]] & ~(uintptr_t)TEST_PC_TAG))
            fail("cache: wrong return address at depth", d);
}
#endif

#if TEST_CACHE
/* warm: the walks the cache may take to settle (random evictions on a full cache). */
static void check_cache(const char *when, unsigned warm)
{
    unsigned chain[HOP_CHAIN];
    unsigned row = chain_in_row(chain);

    unsigned long misses = 0;
    for (unsigned walk = 0; walk < warm + SETTLED; walk++) {
        if (walk == warm)
            misses = cache_misses();
        walk_chain(chain, walk);
    }
    misses = cache_misses() - misses;
    if (misses != 0) {
        cache_fail(when, misses);
        out_num(" descriptions read from code in ", SETTLED, 0);
        out_num(" walks after ", warm, 0);
        out_num(" (row ", row, 0);
        cache_fail_end();
    }
}
#endif

#if TEST_ARM_CACHE
/* The lock that guards the cache's writes: counted, never taken inside itself. */
static unsigned lock_depth;
static unsigned long locks;

msamp_port_lock_t msamp_arm_test_lock(void)
{
    if (lock_depth++ != 0)
        fail("cache: its lock taken inside itself", lock_depth);
    locks++;
    return 0;
}

void msamp_arm_test_unlock(msamp_port_lock_t key)
{
    (void)key;
    if (lock_depth-- != 1)
        fail("cache: unlocked without its lock", lock_depth);
}

static unsigned long nested_frames;
static int in_mid;

static int count_nested(void *arg, uintptr_t pc)
{
    (void)arg;
    (void)pc;
    nested_frames++;
    return 1;
}

/* As an interrupt that walks between the walker's read of an entry and its check of it: its own
 * misses rewrite entries (on a 4-entry cache, every walk's), the read must then count as a miss. */
static void mid_read(void)
{
    if (in_mid)
        return;
    in_mid = 1;
    msamp_port_walk(__builtin_frame_address(0), count_nested, 0);
    in_mid = 0;
}

#define ARM_WALKS 8u
#define ROWS2 (MSAMP_CFG_UNWIND_CACHE / 2u) /* rows of the cache's second way */

/* Hits, misses, collisions and evictions: HOP_CHAIN hops whose return addresses share one entry of
 * the first way, walked again and again, must give their addresses each time; each new return
 * address is decoded, and written under the lock; a cache too small to hold them all keeps
 * decoding (evictions), a larger one decodes fewer on some walk after the first (hits: hops that
 * share a row of the second way too, or with the chain's other frames, still evict each other in
 * turn); walks whose entries an interrupt rewrites while they read them give the same addresses. */
static void check_arm_cache(const char *when)
{
    unsigned chain[HOP_CHAIN];
    chain_in_row(chain);
    unsigned long d0 = cache_misses(), l0 = locks;
    walk_chain(chain, 0);
    unsigned long first = cache_misses() - d0;
    if (first < HOP_CHAIN)
        fail("cache: the hops' return addresses not decoded on their first walk", (unsigned)first);
    /* One lock per write, and one for the very first walk's claim of the cache. */
    if (locks - l0 != first && locks - l0 != first + 1u)
        fail("cache: writes outside the lock", (unsigned)(locks - l0));
    unsigned long least = ~0ul, most = 0;
    for (unsigned walk = 1; walk <= ARM_WALKS; walk++) {
        unsigned long d = cache_misses();
        walk_chain(chain, walk);
        d = cache_misses() - d;
        least = d < least ? d : least;
        most = d > most ? d : most;
    }
    /* One entry of the first way and ROWS2 of the second for HOP_CHAIN addresses. */
    if (1u + ROWS2 < HOP_CHAIN ? least < HOP_CHAIN - 1u - ROWS2 : least >= first) {
        cache_fail(when, first);
        out_num(" decodes on the first walk, then from ", least, 0);
        out_num(" to ", most, 0);
        out_num(" a walk (entries ", MSAMP_CFG_UNWIND_CACHE, 0);
        cache_fail_end();
    }
    msamp_arm_exidx_mid_read = mid_read;
    unsigned long n0 = nested_frames;
    for (unsigned walk = 0; walk < ARM_WALKS; walk++)
        walk_chain(chain, walk);
    msamp_arm_exidx_mid_read = 0;
    if (nested_frames == n0)
        fail("cache: the interrupting walks found no frame", 0);
}
#endif

int main(void)
{
#if TEST_CACHE
    check_cache("empty", 1);
#endif
#if TEST_ARM_CACHE
    check_arm_cache("empty");
#endif
    check_chain();
    unsigned chain = ngot;
    region_setup();
    live_mode = 1;
    check_chain();
    live_mode = 0;
    for (unsigned i = 0; i < TEST_ITERS; i++)
        corrupt_once(i);
    check_chain();
#if TEST_CACHE
    check_cache("filled by the corrupted walks", 32);
#endif
#if TEST_ARM_CACHE
    check_arm_cache("filled by the corrupted walks");
#endif
    out("ok " TEST_NAME ":");
    out_num(" real chain ", chain, 0);
    out_num(" frames; ", TEST_ITERS, 0);
    out_num(" walks of the live chain damaged (", live_pcs, 0);
    out_num(" pcs) and ", TEST_ITERS, 0);
    out_num(" of forged stacks (", total_pcs, 0);
    out(" pcs),");
#if TEST_CACHE
    out_num(" a cache row of ", HOP_CHAIN, 0);
    out(" return addresses settled,");
#endif
#if TEST_ARM_CACHE
    out_num(" unwind cache of ", MSAMP_CFG_UNWIND_CACHE, 0);
    out(" entries: collisions, evictions, interrupted reads,");
#endif
    out(" no fault\n");
    return 0;
}
