/* Per-task budgets (MSAMP_CFG_TASK_BUDGETS, docs/HEALTH.md#task-budgets): a fixed table of the
 * tasks that have a budget, each with its estimated in-use bytes (the sampling weights of its
 * sampled live blocks) and peak, and one byte per live-table slot naming the entry that owns the
 * block in it. The sample and free paths add and take off a slot's weight under the port lock
 * (msamp_budget_set; msamp_budget_clear through msamp_slot_empty: src/msamp_sample.c, and
 * thinning's, with msamp_budget_reweigh: src/msamp_adapt.c); a crossing sends a TASK_BUDGET
 * record (again from msamp_poll() while the ring has no room) and leaves the hook to the
 * allocating context, which calls it outside the lock (msamp_budget_hooks, from the slow paths'
 * exit). */
#include "msamp_internal.h"

#if MSAMP_CFG_TASK_BUDGETS
_Static_assert(MSAMP_CFG_TASK_BUDGETS <= 255, "MSAMP_CFG_TASK_BUDGETS: at most 255");
_Static_assert(!MSAMP_CFG_RUNTIME_TABLES, "MSAMP_CFG_TASK_BUDGETS needs fixed tables (MSAMP_CFG_RUNTIME_TABLES 0)");

#define G msamp_core

struct budget {
    uint32_t task; /* 0: a free entry */
    uintptr_t budget, in_use, peak;
    uint32_t events;  /* crossings so far (TASK_BUDGET.events) */
    uint8_t over;     /* passed, not yet back under 7/8 of the budget */
    uint8_t due;      /* its TASK_BUDGET record waits for room in the ring */
    uint8_t hook;     /* its hook waits for the allocating context */
};
static struct budget tb[MSAMP_CFG_TASK_BUDGETS];
static uint8_t owner[MSAMP_CFG_LIVE_CAPACITY]; /* slot's entry + 1; 0: no budgeted task's */
static _Atomic uint8_t hooks_due, records_due;

/* A slot's weight: its block's size s over p(s, R) = 1 - exp(-s / R), R the interval the entry
 * stands for, both as the table keeps them (so the weight taken off is the one added). p in Q16,
 * the division 32-bit: within 2^-10 of s / p where p >= 2^-6; below, s < R / 64 and the weight is
 * R + s / 2 (within (s / R)^2 / 12 < 2^-15). */
static uintptr_t weight(uint32_t slot)
{
    uintptr_t s = msamp_live_thin_size(slot);
    uint32_t r = msamp_live_interval(slot);
    uint32_t p = msamp_thin_p_q32(msamp_thin_x_q16(s, r)) >> 16;
    if (p >= 0xFFFFu)
        return s;
    if (p < 1024u)
        return r + s / 2u;
    return s / p * 65536u + (uintptr_t)((uint32_t)(s % p) * 65536u / p);
}

static struct budget *find(uint32_t task)
{
    for (uint32_t i = 0; i < MSAMP_CFG_TASK_BUDGETS; i++)
        if (tb[i].task == task)
            return &tb[i];
    return NULL;
}

/* The entry's TASK_BUDGET record, as an event of its own; 0 when it went into the ring. */
static int put(struct budget *b)
{
    struct msamp_writer ev;
    msamp_event_begin(&ev);
    msamp_rec_task_budget(b->task, b->budget, b->in_use, b->peak, b->events, msamp_event_stamp());
    return msamp_event_end(&ev, 0);
}

void msamp_budget_set(uint32_t slot, uint32_t task)
{
    struct budget *b = task != 0 ? find(task) : NULL;
    owner[slot] = (uint8_t)(b != NULL ? b - tb + 1 : 0);
    if (b == NULL)
        return;
    b->in_use += weight(slot);
    if (b->in_use > b->peak)
        b->peak = b->in_use;
    if (b->over || b->in_use <= b->budget)
        return;
    b->over = 1;
    b->events++;
    b->due = put(b) != 0;
    if (b->due)
        atomic_store_explicit(&records_due, 1, memory_order_relaxed);
    b->hook = 1;
    atomic_store_explicit(&hooks_due, 1, memory_order_relaxed);
}

/* The weight out (clear: and the slot's owner forgotten); back under 7/8 of the budget re-arms. */
static void take_off(uint32_t slot, int forget)
{
    uint32_t k = owner[slot];
    if (k == 0)
        return;
    struct budget *b = &tb[k - 1u];
    uintptr_t w = weight(slot);
    b->in_use = b->in_use > w ? b->in_use - w : 0;
    if (b->in_use <= b->budget - b->budget / 8u)
        b->over = 0;
    if (forget)
        owner[slot] = 0;
}

void msamp_budget_clear(uint32_t slot)
{
    take_off(slot, 1);
}

#if MSAMP_CFG_ADAPTIVE
void msamp_budget_reweigh(uint32_t slot, uint32_t interval)
{
    take_off(slot, 0);
    msamp_live_set_interval(slot, interval);
    uint32_t k = owner[slot];
    if (k != 0)
        tb[k - 1u].in_use += weight(slot); /* a crossing shows at the task's next sample */
}
#endif

void msamp_budget_reset(void)
{
    for (uint32_t i = 0; i < MSAMP_CFG_LIVE_CAPACITY; i++)
        owner[i] = 0;
    for (uint32_t i = 0; i < MSAMP_CFG_TASK_BUDGETS; i++)
        tb[i].in_use = tb[i].peak = tb[i].over = tb[i].due = tb[i].hook = 0;
    atomic_store_explicit(&records_due, 0, memory_order_relaxed);
}

void msamp_budget_poll(void)
{
    uint8_t left = 0;
    for (uint32_t i = 0; i < MSAMP_CFG_TASK_BUDGETS; i++) {
        if (tb[i].due && put(&tb[i]) == 0)
            tb[i].due = 0;
        left |= tb[i].due;
    }
    atomic_store_explicit(&records_due, left, memory_order_relaxed);
}

int msamp_budget_due(void)
{
    return atomic_load_explicit(&records_due, memory_order_relaxed);
}

MSAMP_WEAK void msamp_port_task_over_budget(uint32_t task, size_t budget, size_t in_use)
{
    (void)task, (void)budget, (void)in_use;
}

void msamp_budget_hooks(void)
{
    if (!atomic_load_explicit(&hooks_due, memory_order_relaxed))
        return;
    for (;;) {
        struct budget now = {0};
        msamp_port_lock_t key = msamp_port_lock();
        atomic_store_explicit(&hooks_due, 0, memory_order_relaxed);
        for (uint32_t i = 0; i < MSAMP_CFG_TASK_BUDGETS && now.task == 0; i++)
            if (tb[i].hook) {
                tb[i].hook = 0;
                now = tb[i];
            }
        msamp_port_unlock(key);
        if (now.task == 0)
            return;
        msamp_port_task_over_budget(now.task, now.budget, now.in_use);
    }
}

int msamp_task_budget(uint32_t task, size_t bytes)
{
    if (task == 0 || task > UINT16_MAX)
        return MSAMP_ERR_INVAL;
    int rc = MSAMP_OK;
    msamp_port_lock_t key = msamp_port_lock();
    struct budget *b = find(task);
    if (b == NULL && bytes != 0) {
        b = find(0);
        if (b == NULL)
            rc = MSAMP_ERR_FULL;
        else
            *b = (struct budget){.task = task};
    }
    if (b != NULL && bytes == 0) {
        uint8_t k = (uint8_t)(b - tb + 1);
        for (uint32_t i = 0; i < MSAMP_CFG_LIVE_CAPACITY; i++)
            if (owner[i] == k)
                owner[i] = 0;
        *b = (struct budget){0};
    } else if (b != NULL) {
        b->budget = bytes;
        if (b->in_use <= bytes - bytes / 8u)
            b->over = 0;
    }
    msamp_port_unlock(key);
    return rc;
}

int msamp_task_usage(uint32_t task, size_t *in_use, size_t *peak)
{
    if (task == 0 || task > UINT16_MAX)
        return MSAMP_ERR_INVAL;
    msamp_port_lock_t key = msamp_port_lock();
    struct budget *b = find(task);
    struct budget now = b != NULL ? *b : (struct budget){0};
    msamp_port_unlock(key);
    if (b == NULL)
        return MSAMP_ERR_INVAL;
    if (in_use != NULL)
        *in_use = now.in_use;
    if (peak != NULL)
        *peak = now.peak;
    return MSAMP_OK;
}
#else
typedef int msamp_task_budgets_left_out; /* MSAMP_CFG_TASK_BUDGETS 0: nothing (ISO C: not empty) */
#endif
