/* The models beside the session that its record dispatch tells of events (session.h's struct
 * session_observers): the heap's (heap.c: HEAP records, failures, snapshot ends, the low
 * watermark's sites) and the tasks' (task_use.c: budgets, each live slot's weight). Wired here,
 * above the session and both models, so the session's files include neither's header and no
 * circle runs through the model (docs/ARCHITECTURE.md "drain's stages"). */
#include "model/heap.h"
#include "model/session.h"
#include "model/task_use.h"

const struct session_observers session_observers = {
    .heap_record = heap_on_record,
    .budget_record = task_use_on_record,
    .fail = heap_on_fail,
    .snap_end = heap_on_snap_end,
    .site_low = heap_site_low,
    .weight = task_use_change,
};
