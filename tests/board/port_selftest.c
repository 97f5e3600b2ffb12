/*
 * Port self-test, run on a board under QEMU: the frame walker on real and corrupted frame
 * chains, contexts in thread and interrupt mode, the lock against the timer interrupt, the clock,
 * the build-id. Prints "selftest ok NAME" / "selftest FAIL NAME" lines and "selftest build_id=HEX";
 * exits 0 only if every check passed. The forged-chain checks assume frame records
 * {previous frame, return address} (SELFTEST_FORGED_RECORDS); the interrupt checks need
 * board_timer_start() and a global `irq_entry` symbol for the board's IRQ entry.
 */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "msamp_port.h"

int main(void);

/* 1 when the port's frame records are {previous frame, return address} at the frame address (the
 * forged-chain checks build such records): AArch64, x86-64, clang ARM/Thumb. */
#ifndef SELFTEST_FORGED_RECORDS
#define SELFTEST_FORGED_RECORDS 1
#endif

extern const char __msamp_stack_lo[], __msamp_stack_hi[];
extern const char irq_entry[];

static int failures;

static void say(const char *a, const char *b)
{
    char line[160];
    size_t n = 0;
    for (const char *s = a; *s != '\0' && n < 70; s++)
        line[n++] = *s;
    for (const char *s = b; *s != '\0' && n < 150; s++)
        line[n++] = *s;
    line[n++] = '\n';
    line[n] = '\0';
    board_console(line);
}

static void check(int ok, const char *name)
{
    say(ok ? "selftest ok " : "selftest FAIL ", name);
    if (!ok)
        failures++;
}

struct collect {
    uintptr_t pcs[300];
    unsigned n, limit;
};

static int collect_pc(void *arg, uintptr_t pc)
{
    struct collect *c = arg;
    if (c->n < 300)
        c->pcs[c->n] = pc;
    c->n++;
    return c->n < c->limit;
}

static unsigned walk(const void *frame, struct collect *c, unsigned limit)
{
    c->n = 0;
    c->limit = limit;
    msamp_port_walk(frame, collect_pc, c);
    return c->n;
}

/* ---- a real chain: main -> chain_a -> chain_b -> chain_c, each noting its return address ---- */
static uintptr_t ra[3];
static struct collect got, got2;
static volatile int keep;

__attribute__((noinline)) static void chain_c(void)
{
    ra[2] = (uintptr_t)__builtin_return_address(0);
    walk(__builtin_frame_address(0), &got, 64);
    walk(__builtin_frame_address(0), &got2, 2);
    keep++;
}

__attribute__((noinline)) static void chain_b(void)
{
    ra[1] = (uintptr_t)__builtin_return_address(0);
    chain_c();
    keep++;
}

__attribute__((noinline)) static void chain_a(void)
{
    ra[0] = (uintptr_t)__builtin_return_address(0);
    chain_b();
    keep++;
}

static void test_real_chain(void)
{
    chain_a();
    check(got.n >= 3 && got.pcs[0] == ra[2] && got.pcs[1] == ra[1] && got.pcs[2] == ra[0],
          "walk: return addresses of a real chain, innermost first");
    check(got.n <= 8, "walk: stops at the start-up code's zero record");
    check(got2.n == 2 && got2.pcs[1] == ra[1], "walk: stops when the callback says so");
}

/* ---- forged chains in a buffer on the stack ---- */
/* An address in the stack frame of a call that has returned: below the caller's stack pointer. */
__attribute__((noinline)) static uintptr_t stack_now(void)
{
    return (uintptr_t)__builtin_frame_address(0);
}

static void test_forged(void)
{
    _Alignas(16) uintptr_t rec[2 * 300 + 2];
    struct collect c;
    uintptr_t base = (uintptr_t)rec;

    check(walk(NULL, &c, 64) == 0, "walk: NULL frame reads nothing");
    /* A plausible record in dead stack, well below every live frame (no interrupt runs here). */
    volatile uintptr_t *dead = (volatile uintptr_t *)((stack_now() - 1024u) & ~(uintptr_t)15);
    dead[0] = 0;
    dead[1] = 0x1234;
    check(walk((const void *)dead, &c, 64) == 0, "walk: a frame below the walker's own (dead stack) reads nothing");
    check(walk((const char *)rec + 4, &c, 64) == 0, "walk: misaligned frame reads nothing");
    static uintptr_t outside[2] = {0, 0x1234};
    check(walk(outside, &c, 64) == 0, "walk: frame outside the stack reads nothing");
    check(walk((const void *)((uintptr_t)__msamp_stack_hi - 8), &c, 64) == 0, "walk: record crossing the stack top is refused");

    rec[0] = base; /* points at itself */
    rec[1] = 0x1000;
    check(walk(rec, &c, 64) == 1, "walk: a self-loop stops after one frame");

    rec[0] = base - 64; /* goes down the stack */
    check(walk(rec, &c, 64) == 1, "walk: a decreasing frame pointer stops");

    rec[0] = base + 16;
    rec[2] = base + 32;
    rec[3] = 0; /* zero return address */
    check(walk(rec, &c, 64) == 1, "walk: a zero return address stops");

    rec[0] = (uintptr_t)__msamp_stack_hi + 4096u; /* the next record is past the stack */
    check(walk(rec, &c, 64) == 1, "walk: a link out of the stack stops");

    for (unsigned i = 0; i < 300; i++) {
        rec[2 * i] = base + 16 * (i + 1);
        rec[2 * i + 1] = 0x4000 + i;
    }
    rec[600] = 0;
    rec[601] = 0;
    unsigned n = walk(rec, &c, 1000);
    check(n > 0 && n <= 256 && c.pcs[0] == 0x4000 && c.pcs[n - 1] == 0x4000 + n - 1,
          "walk: a long chain is capped by the port");
    check(walk(rec, &c, 32) == 32, "walk: a long chain is cut by the callback's depth");
}

/* ---- contexts, lock and timer ---- */
static volatile uint32_t ticks;
static struct msamp_context *volatile irq_ctx;
static struct collect irq_walk;

__attribute__((noinline)) static void timer_fn(void)
{
    ticks = ticks + 1;
    irq_ctx = msamp_port_context();
    walk(__builtin_frame_address(0), &irq_walk, 64);
    keep++;
}

static void wait_ticks(uint32_t n)
{
    uint64_t deadline = board_ticks() + board_tick_hz(); /* at most 1 s */
    uint32_t start = ticks;
    while (ticks - start < n && board_ticks() < deadline) {
    }
}

static void test_contexts_and_lock(void)
{
    struct msamp_context *t = msamp_port_context();
    check(t != NULL && t == msamp_port_context(), "context: thread context is stable");
    if (board_timer_start(100, timer_fn) != 0) {
        say("selftest skip: no timer interrupt on this board (contexts in interrupts, lock)", "");
        return;
    }
    wait_ticks(3);
    check(ticks >= 3, "timer: interrupts arrive");
    check(irq_ctx != NULL && irq_ctx != t, "context: the interrupt has its own context");
    unsigned n = irq_walk.n;
    uintptr_t last = n > 0 ? irq_walk.pcs[n - 1] : 0;
    check(n >= 2 && n <= 4 && last >= (uintptr_t)irq_entry && last < (uintptr_t)irq_entry + 256,
          "walk: an interrupt's stack ends in the IRQ entry");

    msamp_port_lock_t k = msamp_port_lock();
    uint32_t before = ticks;
    uint64_t until = board_ticks() + board_tick_hz() / 100; /* 10 ms, 100 timer periods */
    while (board_ticks() < until) {
    }
    uint32_t during = ticks - before;
    msamp_port_unlock(k);
    wait_ticks(2);
    check(during == 0, "lock: masks the timer interrupt");
    check(ticks - before >= 1, "lock: unlock lets it in again");
    board_timer_stop();
}

static void test_time(void)
{
    uint64_t a = msamp_port_time(), b = msamp_port_time();
    check(msamp_port_time_hz() >= 1000000u, "time: rate of at least 1 MHz");
    check(b >= a, "time: monotonic");
}

static void test_build_id(void)
{
    const uint8_t *id = NULL;
    size_t n = msamp_port_build_id(&id);
    check(n >= 8 && n <= 64 && id != NULL, "build-id: found");
    char hex[2 * 64 + 1];
    for (size_t i = 0; i < n && i < 64; i++) {
        hex[2 * i] = "0123456789abcdef"[id[i] >> 4];
        hex[2 * i + 1] = "0123456789abcdef"[id[i] & 15u];
    }
    hex[2 * (n < 64 ? n : 64)] = '\0';
    say("selftest build_id=", hex);
}

int main(void)
{
    board_init();
    test_real_chain();
#if SELFTEST_FORGED_RECORDS
    test_forged();
#endif
    test_time();
    test_contexts_and_lock();
    test_build_id();
    say(failures == 0 ? "selftest passed" : "selftest failed", "");
    return failures == 0 ? 0 : 1;
}
