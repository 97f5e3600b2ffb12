/* Per-task budgets (msamp_task_budget, MSAMP_CFG_TASK_BUDGETS=2 here) end to end on the fake port:
 * bad arguments and a full table refused with their codes; at interval 1 (every allocation
 * sampled, each weighing its size) a task's estimate is its live bytes exactly, a crossing sends
 * one TASK_BUDGET record (decoded: task, budget, estimate, peak, events) and calls the hook once,
 * another task's blocks and frees do not count, the crossing re-arms only once the estimate fell
 * to 7/8 of the budget, a hook that frees (sheds load) is seen, a record the full ring refused goes
 * out at the next poll; at a sampled interval (several seeds) the device's estimate is the sum of
 * the exact weights s / (1 - exp(-s/R)) of the task's live table entries, and the task's true
 * live bytes within 4 standard errors. */
#include <math.h>
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
void *__wrap_realloc(void *p, size_t size);

#define MAXR 64
static struct {
    uint64_t task, budget, in_use, peak, events;
} rb[MAXR];
static int nrb;

static void on_rec(void *arg, const struct msamp_record *r)
{
    (void)arg;
    if (r->type != MSAMP_REC_TASK_BUDGET || nrb >= MAXR)
        return;
    rb[nrb].task = r->u.task_budget.task;
    rb[nrb].budget = r->u.task_budget.budget;
    rb[nrb].in_use = r->u.task_budget.in_use;
    rb[nrb].peak = r->u.task_budget.peak;
    rb[nrb].events = r->u.task_budget.events;
    nrb++;
}

static size_t mark;

/* Flushes and decodes the TASK_BUDGET records that went out since the last call. */
static void decode_new(void)
{
    nrb = 0;
    decode_since(&mark, on_rec);
}

/* The hook: its calls, and blocks it frees when asked to shed load. */
static int hook_calls;
static uint32_t hook_task;
static size_t hook_budget, hook_in_use;
static void *shed[4];
void msamp_port_task_over_budget(uint32_t task, size_t budget, size_t in_use)
{
    CHECK_EQ(fake_lock_depth, 0); /* outside the core's lock */
    hook_calls++;
    hook_task = task;
    hook_budget = budget;
    hook_in_use = in_use;
    for (int i = 0; i < 4; i++) {
        __wrap_free(shed[i]);
        shed[i] = NULL;
    }
}

static size_t in_use(uint32_t task)
{
    size_t u = 0, peak = 0;
    CHECK_EQ(msamp_task_usage(task, &u, &peak), 0);
    return u;
}

static void test_args(void)
{
    CHECK_EQ(msamp_task_budget(0, 100), MSAMP_ERR_INVAL);
    CHECK_EQ(msamp_task_budget(65536, 100), MSAMP_ERR_INVAL);
    CHECK_EQ(msamp_task_usage(5, NULL, NULL), MSAMP_ERR_INVAL); /* no budget */
    CHECK_EQ(msamp_task_usage(0, NULL, NULL), MSAMP_ERR_INVAL);
    CHECK_EQ(msamp_task_budget(5, 100), 0);
    CHECK_EQ(msamp_task_budget(6, 100), 0);
    CHECK_EQ(msamp_task_budget(7, 100), MSAMP_ERR_FULL); /* two entries */
    CHECK_EQ(msamp_task_budget(6, 200), 0);              /* a change, not a new entry */
    CHECK_EQ(msamp_task_budget(6, 0), 0);                /* removed: the entry is free */
    CHECK_EQ(msamp_task_usage(6, NULL, NULL), MSAMP_ERR_INVAL);
    CHECK_EQ(msamp_task_budget(7, 100), 0);
    CHECK_EQ(msamp_task_budget(7, 0), 0);
    CHECK_EQ(msamp_task_budget(8, 0), 0); /* removing a task without a budget: nothing to do */
    CHECK_EQ(msamp_task_budget(5, 0), 0);
}

static void test_crossing(void)
{
    CHECK_EQ(msamp_set_interval_bounds(1, 1), 0); /* every byte: each block weighs its size */
    CHECK_EQ(msamp_task_budget(5, 1000), 0);
    fake_contexts[0].task = 5;
    fake_contexts[1].task = 9; /* no budget */
    fake_ctx = 0;
    void *a = __wrap_malloc(400), *b = __wrap_malloc(400);
    CHECK_EQ(in_use(5), 800);
    fake_ctx = 1;
    void *other = __wrap_malloc(5000); /* task 9's: not task 5's */
    fake_ctx = 0;
    CHECK_EQ(in_use(5), 800);
    decode_new();
    CHECK_EQ(nrb, 0);
    CHECK_EQ(hook_calls, 0);

    void *c = __wrap_malloc(300); /* 1100 > 1000: the crossing */
    CHECK_EQ(hook_calls, 1);
    CHECK_EQ(hook_task, 5);
    CHECK_EQ(hook_budget, 1000);
    CHECK_EQ(hook_in_use, 1100);
    void *d = __wrap_malloc(100); /* still over: no second event */
    CHECK_EQ(hook_calls, 1);
    decode_new();
    CHECK_EQ(nrb, 1);
    CHECK_EQ(rb[0].task, 5);
    CHECK_EQ(rb[0].budget, 1000);
    CHECK_EQ(rb[0].in_use, 1100);
    CHECK_EQ(rb[0].peak, 1100);
    CHECK_EQ(rb[0].events, 1);

    fake_ctx = 1;
    __wrap_free(other); /* another task's free */
    fake_ctx = 0;
    CHECK_EQ(in_use(5), 1200);
    __wrap_free(d); /* 1100 */
    __wrap_free(c); /* 800 <= 875: re-armed */
    CHECK_EQ(in_use(5), 800);
    size_t peak = 0;
    CHECK_EQ(msamp_task_usage(5, NULL, &peak), 0);
    CHECK_EQ(peak, 1200);
    c = __wrap_malloc(150); /* 950: under */
    __wrap_free(c);
    c = __wrap_malloc(190); /* 990 */
    CHECK_EQ(hook_calls, 1);
    d = __wrap_realloc(c, 250); /* 1050: a realloc passes it too */
    CHECK_EQ(hook_calls, 2);
    CHECK_EQ(hook_in_use, 1050);
    decode_new();
    CHECK_EQ(nrb, 1);
    CHECK_EQ(rb[0].events, 2);
    CHECK_EQ(rb[0].peak, 1200);

    /* Not re-armed above 7/8: 900 > 875, then over again without an event. */
    __wrap_free(d); /* 800: re-armed */
    c = __wrap_malloc(300); /* 1100: third crossing */
    CHECK_EQ(hook_calls, 3);
    __wrap_free(c); /* 800 */
    c = __wrap_malloc(100); /* 900: re-armed at 800 already, no crossing */
    void *e = __wrap_malloc(150); /* 1050: fourth */
    CHECK_EQ(hook_calls, 4);
    __wrap_free(e); /* 900 > 875: stays over */
    e = __wrap_malloc(150); /* 1050: no event */
    CHECK_EQ(hook_calls, 4);
    decode_new();
    CHECK_EQ(nrb, 2);
    CHECK_EQ(rb[1].events, 4);

    /* A hook that sheds load: its frees are seen. */
    __wrap_free(e);
    __wrap_free(c); /* 800 */
    for (int i = 0; i < 4; i++)
        shed[i] = __wrap_malloc(40); /* 960 */
    c = __wrap_malloc(100); /* 1060: fifth; the hook frees 160 */
    CHECK_EQ(hook_calls, 5);
    CHECK_EQ(in_use(5), 900);

    /* The ring has no room: the record goes out at the next poll with room. */
    __wrap_free(c); /* 800: re-armed */
    decode_new();
    fake_transport_stalled = 1;
    static const char text[64] = "a mark that fills the ring";
    int marks = 0;
    while (marks < 1000 && msamp_mark(text, sizeof(text)) == 0) /* until the ring is full */
        marks++;
    CHECK(marks < 1000);
    c = __wrap_malloc(300); /* 1100: sixth, its record (and its ALLOC) refused */
    CHECK_EQ(hook_calls, 6);
    CHECK_EQ(in_use(5), 1100);
    (void)msamp_poll(); /* the transport takes nothing: the record still waits */
    fake_transport_stalled = 0;
    decode_new(); /* the flush empties the ring and goes on: the next poll writes the record */
    CHECK_EQ(nrb, 1);
    CHECK_EQ(rb[0].events, 6);
    CHECK_EQ(rb[0].in_use, 1100);
    __wrap_free(c);
    __wrap_free(a);
    __wrap_free(b);
    CHECK_EQ(in_use(5), 0);
    CHECK_EQ(msamp_task_budget(5, 0), 0);
}

/* At interval R: the device's estimate against the exact weights of the task's live entries and
 * against the truth, over several seeds (pooled: the sum of the errors over the sum of the
 * variances' bound). */
static void test_sampled(void)
{
    const uint32_t R = 512;
    double err = 0, var = 0;
    for (uint32_t seed = 1; seed <= 8; seed++) {
        CHECK_EQ(msamp_set_interval_bounds(R, R), 0);
        CHECK_EQ(msamp_set_interval(R), 0);
        CHECK_EQ(msamp_task_budget(5, (size_t)1 << 30), 0);
        fake_ctx = 0;
        static void *kept[200];
        uint32_t rng = seed * 2654435761u;
        double truth = 0;
        for (int i = 0; i < 200; i++) {
            rng = rng * 1664525u + 1013904223u;
            size_t s = 16u + (rng >> 8) % 400u;
            kept[i] = __wrap_malloc(s);
            truth += (double)s;
            var += (double)R * (double)s; /* s^2 (1 - p) / p <= R s */
        }
        double exact = 0;
        for (uint32_t slot = 0; slot < MSAMP_CFG_LIVE_CAPACITY; slot++) {
            if (msamp_live_addr(slot) == 0)
                continue;
            double s = (double)msamp_live_thin_size(slot), r = msamp_live_interval(slot);
            exact += s / -expm1(-s / r);
        }
        double dev = (double)in_use(5);
        CHECK(fabs(dev - exact) <= 0.002 * exact + 1.0);
        err += dev - truth;
        for (int i = 0; i < 200; i++)
            __wrap_free(kept[i]);
        CHECK_EQ(in_use(5), 0);
        CHECK_EQ(msamp_task_budget(5, 0), 0);
    }
    printf("sampled: pooled error %.0f B, %.2f standard errors\n", err, err / sqrt(var));
    CHECK(fabs(err) <= 4.0 * sqrt(var));
}

int main(void)
{
    test_args(); /* before init: the table is static */
    struct msamp_config cfg = {.interval = 1, .resend_ms = 100000, .seed = 7};
    CHECK_EQ(msamp_init(&cfg), 0);
    decode_new();
    test_crossing();
    test_sampled();
    return check_report("unit-budget");
}
