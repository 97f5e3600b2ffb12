/* Allocation failures, the giant-allocation guard, nested allocator calls and walks without a
 * frame, end to end on the fake port (wrappers -> core -> ring -> frames), decoded by the host
 * decoder: every failure a FAIL record with its stack, size and the device's running count; the
 * guard's refusals too, and the allocator never sees them; an allocator whose calloc and realloc
 * call the wrapped malloc and free inside (newlib's) counts each allocation once, at the outer
 * call; a walk with no frame counts in DROPS.no_frame. Built with MSAMP_CFG_GIANT_BYTES=1 MiB. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fake_port.h"
#include "msamp.h"
#include "msamp_decode.h"
#include "msamp_internal.h"
#include "decode_since.h"

void *__wrap_malloc(size_t size);
void __wrap_free(void *p);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

/* A flat log of the FAIL, ALLOC, REALLOC, FREE and DROPS records. */
#define MAXR 4096
static struct {
    int type;
    uint64_t kind, size, stack, count, a;
    int has_no_frame;
} rr[MAXR];
static int nr;

static void on_rec(void *arg, const struct msamp_record *r)
{
    (void)arg;
    if (nr >= MAXR)
        return;
    switch (r->type) {
    case MSAMP_REC_FAIL:
        rr[nr].kind = r->u.fail.kind;
        rr[nr].size = r->u.fail.size;
        rr[nr].stack = r->u.fail.stack_id;
        rr[nr].count = r->u.fail.count;
        break;
    case MSAMP_REC_ALLOC:
        rr[nr].size = r->u.alloc.size;
        rr[nr].stack = r->u.alloc.stack_id;
        break;
    case MSAMP_REC_REALLOC:
        rr[nr].size = r->u.realloc.size;
        rr[nr].stack = r->u.realloc.stack_id;
        break;
    case MSAMP_REC_FREE:
        break;
    case MSAMP_REC_DROPS:
        rr[nr].a = r->u.drops.no_frame;
        rr[nr].has_no_frame = r->u.drops.has_no_frame;
        break;
    case MSAMP_REC_STACK:
        rr[nr].stack = r->u.stack.id;
        rr[nr].a = r->u.stack.depth ? r->u.stack.frames[0] : 0;
        break;
    default:
        return;
    }
    rr[nr++].type = r->type;
}

static size_t mark;

/* Flushes and decodes what went out since the last call. */
static void decode_new(void)
{
    nr = 0;
    decode_since(&mark, on_rec);
}

static int count_type(int type)
{
    int n = 0;
    for (int i = 0; i < nr; i++)
        n += rr[i].type == type;
    return n;
}

/* The frame a stack id was defined with (0: never defined in the log). */
static uint64_t stack_frame(uint64_t id)
{
    for (int i = 0; i < nr; i++)
        if (rr[i].type == MSAMP_REC_STACK && rr[i].stack == id)
            return rr[i].a;
    return 0;
}

static void at(uintptr_t pc)
{
    fake_stack[0] = pc;
    fake_stack[1] = 0x400100;
    fake_depth = 2;
}

static void test_failures(void)
{
    struct msamp_stats st;
    fake_fail = 1;
    at(0x401000);
    for (int i = 0; i < 3; i++)
        CHECK(__wrap_malloc(4096) == NULL);
    at(0x402000);
    CHECK(__wrap_calloc(100, 7) == NULL);
    char keep[16];
    CHECK(__wrap_realloc(keep, 5000) == NULL); /* fails: keep untouched, never freed */
    CHECK(__wrap_malloc(0) == NULL);           /* size 0: not a failure */
    size_t huge = SIZE_MAX / 2 + 2;
    fake_fail = 0;
    CHECK(__wrap_calloc(huge, 2) == NULL); /* n * size overflows: refused, reported as SIZE_MAX */
    CHECK_EQ(msamp_get_stats(&st), 0);
    CHECK_EQ(st.failed, 5);
    CHECK_EQ(st.refused, 1); /* SIZE_MAX is over the guard's limit */
    decode_new();
    CHECK_EQ(count_type(MSAMP_REC_FAIL), 6);
    CHECK_EQ(count_type(MSAMP_REC_ALLOC), 0);
    uint64_t sizes[6] = {4096, 4096, 4096, 700, 5000, SIZE_MAX};
    uint64_t counts[6] = {1, 2, 3, 4, 5, 1};
    uint64_t frames[6] = {0x401000, 0x401000, 0x401000, 0x402000, 0x402000, 0x402000};
    int k = 0;
    for (int i = 0; i < nr && k < 6; i++) {
        if (rr[i].type != MSAMP_REC_FAIL)
            continue;
        CHECK_EQ(rr[i].kind, k < 5 ? MSAMP_FAIL_NULL : MSAMP_FAIL_GIANT);
        CHECK_EQ(rr[i].size, sizes[k]);
        CHECK_EQ(rr[i].count, counts[k]);
        CHECK_EQ(stack_frame(rr[i].stack), frames[k]);
        k++;
    }
    CHECK_EQ(k, 6);
}

static void test_giant(void)
{
    struct msamp_stats before, after;
    CHECK_EQ(msamp_get_stats(&before), 0);
    at(0x403000);
    errno = 0;
    CHECK(__wrap_malloc(1u << 20) == NULL); /* MSAMP_CFG_GIANT_BYTES: refused */
    CHECK_EQ(errno, 0);                     /* the fake port's msamp_port_refused is the default */
    CHECK(__wrap_realloc(NULL, 3u << 20) == NULL);
    void *ok = __wrap_malloc((1u << 20) - 1);
    CHECK(ok != NULL);
    __wrap_free(ok);
    CHECK_EQ(msamp_get_stats(&after), 0);
    CHECK_EQ(after.refused, before.refused + 2);
    CHECK_EQ(after.failed, before.failed);
    CHECK_EQ(after.samples, before.samples + 1);
    decode_new();
    CHECK_EQ(count_type(MSAMP_REC_FAIL), 2);
    int k = 0;
    for (int i = 0; i < nr; i++)
        if (rr[i].type == MSAMP_REC_FAIL) {
            CHECK_EQ(rr[i].kind, MSAMP_FAIL_GIANT);
            CHECK_EQ(rr[i].size, k == 0 ? 1u << 20 : 3u << 20);
            CHECK_EQ(rr[i].count, before.refused + 1 + (uint64_t)k);
            CHECK_EQ(stack_frame(rr[i].stack), 0x403000);
            k++;
        }
}

/* newlib's calloc and realloc call malloc and free inside: each allocation counts once. */
static void test_nested(void)
{
    struct msamp_stats before, after;
    CHECK_EQ(msamp_get_stats(&before), 0);
    fake_nested = 1;
    at(0x404000);
    void *c = __wrap_calloc(10, 30);
    CHECK(c != NULL);
    at(0x405000);
    void *r = __wrap_realloc(c, 500); /* moves: malloc(500) and free(c) inside */
    CHECK(r != NULL);
    void *n = __wrap_realloc(NULL, 64); /* malloc inside */
    at(0x406000);
    CHECK(__wrap_realloc(n, 0) == NULL); /* free inside */
    __wrap_free(r);
    /* Under the giant guard's limit outside, over it in the allocator's own inner request: not
     * refused (the outer wrapper judged the request). */
    at(0x407000);
    void *g = __wrap_calloc(1, (1u << 20) - 16);
    CHECK(g != NULL);
    __wrap_free(g);
    fake_nested = 0;
    CHECK_EQ(msamp_get_stats(&after), 0);
    CHECK_EQ(after.samples, before.samples + 4); /* calloc, realloc, realloc(NULL), calloc */
    CHECK_EQ(after.frees, before.frees + 4);     /* c (moved), n, r, g */
    CHECK_EQ(after.refused, before.refused);
    CHECK_EQ(after.reentrant, before.reentrant);
    CHECK_EQ(after.live_used, before.live_used);
    decode_new();
    CHECK_EQ(count_type(MSAMP_REC_ALLOC), 3);   /* calloc 300, realloc(NULL) 64, calloc */
    CHECK_EQ(count_type(MSAMP_REC_REALLOC), 1); /* 300 -> 500, one lifetime */
    CHECK_EQ(count_type(MSAMP_REC_FREE), 3);
    CHECK_EQ(count_type(MSAMP_REC_FAIL), 0);
    int seen = 0;
    for (int i = 0; i < nr; i++) {
        if (rr[i].type == MSAMP_REC_ALLOC && rr[i].size == 300)
            seen += stack_frame(rr[i].stack) == 0x404000;
        if (rr[i].type == MSAMP_REC_REALLOC)
            seen += rr[i].size == 500 && stack_frame(rr[i].stack) == 0x405000;
        if (rr[i].type == MSAMP_REC_ALLOC && rr[i].size == 64)
            seen += stack_frame(rr[i].stack) == 0x405000;
    }
    CHECK_EQ(seen, 3);
    /* The countdown the nested calls parked is back: sampling goes on at interval 1. */
    void *p = __wrap_malloc(8);
    __wrap_free(p);
    CHECK_EQ(msamp_get_stats(&after), 0);
    CHECK_EQ(after.samples, before.samples + 5);
}

/* msamp_unseen (the port contract): a port's own allocations pass through unseen, from an idle
 * context and from inside the core (as from msamp_port_ring_notify): neither sampled nor counted
 * as reentrant; the context's mark and countdown are back after. */
static void unseen_allocs(void *arg)
{
    void **p = arg;
    p[0] = __wrap_malloc(100);
    p[1] = __wrap_calloc(2, 50);
    __wrap_free(p[1]);
}

static void test_unseen(void)
{
    struct msamp_context *c = MSAMP_PORT_CONTEXT();
    struct msamp_stats before, after;
    void *p[2], *q[2];
    CHECK_EQ(msamp_get_stats(&before), 0);
    uintptr_t countdown = atomic_load(&c->countdown);
    msamp_unseen(unseen_allocs, p);
    CHECK(p[0] != NULL);
    CHECK_EQ(c->busy, 0);
    CHECK_EQ(atomic_load(&c->countdown), countdown);
    c->busy = MSAMP_BUSY_CORE;
    msamp_unseen(unseen_allocs, q);
    CHECK(q[0] != NULL);
    CHECK_EQ(c->busy, MSAMP_BUSY_CORE);
    c->busy = 0;
    CHECK_EQ(msamp_get_stats(&after), 0);
    CHECK_EQ(after.samples, before.samples);
    CHECK_EQ(after.reentrant, before.reentrant);
    __wrap_free(p[0]);
    __wrap_free(q[0]);
    void *s = __wrap_malloc(8); /* sampling goes on, at interval 1 */
    __wrap_free(s);
    CHECK_EQ(msamp_get_stats(&after), 0);
    CHECK_EQ(after.samples, before.samples + 1);
    decode_new();
}

static void test_no_frame(void)
{
    decode_new(); /* what went before */
    fake_depth = 0;
    for (int i = 0; i < 5; i++)
        __wrap_free(__wrap_malloc(40));
    CHECK(__wrap_malloc(2u << 20) == NULL); /* a refusal without frames counts too */
    struct msamp_stats st;
    CHECK_EQ(msamp_get_stats(&st), 0);
    CHECK_EQ(st.no_frame, 6);
    decode_new();
    int drops = 0;
    for (int i = 0; i < nr; i++) {
        if (rr[i].type == MSAMP_REC_ALLOC || rr[i].type == MSAMP_REC_FAIL)
            CHECK_EQ(rr[i].stack, 0);
        if (rr[i].type == MSAMP_REC_DROPS) {
            drops++;
            CHECK(rr[i].has_no_frame);
            CHECK_EQ(rr[i].a, 6);
        }
    }
    CHECK(drops >= 1);
}

/* The giant guard's limit bounds the countdown the fast path reads (MSAMP_FAST_MAX): requests at
 * the limit reach the slow path whatever the gap, and the gap's rest waits in the context's
 * reserve, so an interval above the limit samples as often as it should: 200000 blocks of 4 KiB
 * at a 4 MiB interval, 195.2 samples expected (sd 14), not one per MiB of requests (781). */
static void test_clamp(void)
{
#if MSAMP_FAST_CLAMPED
    struct msamp_context *c = MSAMP_PORT_CONTEXT();
    struct msamp_stats before, after;
    CHECK_EQ(MSAMP_FAST_MAX, (uintptr_t)(1u << 20) - 1u);
    CHECK_EQ(msamp_set_interval_bounds(4u << 20, 4u << 20), 0);
    CHECK_EQ(msamp_set_interval(4u << 20), 0);
    CHECK_EQ(msamp_get_stats(&before), 0);
    int over = 0;
    for (int i = 0; i < 200000; i++) {
        __wrap_free(__wrap_malloc(4096));
        over += atomic_load(&c->countdown) > MSAMP_FAST_MAX;
        if ((i & 4095) == 0)
            (void)msamp_poll(); /* keeps the ring from filling (the samples are counted anyway) */
    }
    CHECK_EQ(over, 0);
    CHECK_EQ(msamp_get_stats(&after), 0);
    uint32_t n = after.samples - before.samples;
    printf("clamp: %u samples of 200000 4 KiB blocks at a 4 MiB interval (195.2 expected)\n", n);
    CHECK(n >= 125 && n <= 266); /* within 5 sd */
    CHECK_EQ(msamp_set_interval_bounds(1, 1), 0);
    CHECK_EQ(msamp_set_interval(1), 0);
    decode_new();
#endif
}

/* A disabled profiler reports no failure either. */
static void test_disabled(void)
{
    struct msamp_stats before, after;
    CHECK_EQ(msamp_disable(), 0);
    CHECK_EQ(msamp_get_stats(&before), 0);
    fake_fail = 1;
    CHECK(__wrap_malloc(100) == NULL);
    fake_fail = 0;
    CHECK_EQ(msamp_get_stats(&after), 0);
    CHECK_EQ(after.failed, before.failed);
    CHECK_EQ(msamp_enable(), 0);
}

/* With an argument: the whole stream is also written to that file (for drain-failures). */
int main(int argc, char **argv)
{
    struct msamp_config cfg = {.interval = 1, .resend_ms = 100000, .seed = 7};
    CHECK_EQ(msamp_init(&cfg), 0);
    decode_new();
    test_failures();
    test_giant();
    test_nested();
    test_unseen();
    test_no_frame();
    test_clamp();
    test_disabled();
    if (argc > 1) {
        FILE *f = fopen(argv[1], "wb");
        CHECK(f != NULL && fwrite(fake_out, 1, fake_out_len, f) == fake_out_len);
        CHECK(f != NULL && fclose(f) == 0);
    }
    return check_report("unit-fail");
}
