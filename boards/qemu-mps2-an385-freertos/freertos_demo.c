/* The demo firmware of qemu-mps2-an385-freertos: FreeRTOS tasks that allocate through
 * pvPortMalloc/vPortFree (heap_4, profiled by msamp's FreeRTOS layer), and the truth a test checks
 * the profile against (tests/rtos/).
 *
 *   producer  (priority 2) messages of 24..280 bytes sent through a queue, in tight bursts
 *   consumer  (priority 3) receives and frees them; keeps a log of its last 8 entries
 *   worker    (priority 2, time-sliced with producer) buffers of 64..1024 bytes, 16 kept, in
 *             tight loops
 *   leaker    (priority 3, above the busy ones: its leak is steady whatever CPU they take) a
 *             256-byte record every 5 ms, never freed, and scratch blocks freed; at 15 % of the
 *             run (its keepers then live over the later half, where drain judges the leak by its
 *             trend) a fragmenting phase: 1536-byte blocks interleaved with 384-byte keepers until
 *             the heap is down to FRAG_RESERVE, the big ones freed (holes between the keepers,
 *             which stay), then one request between the largest free block and the free bytes: it
 *             fails for fragmentation
 *   TmrSvc    a software timer's callback every 1 ms: samples of 32..96 bytes, 4 kept
 *   interrupt TIMER0 every 500 us: packets from a static pool (msamp_on_alloc: an ISR may not call
 *             pvPortMalloc), sent with xQueueSendFromISR to sink (priority 3), which frees them
 *   budgeted  (priority 2) a task with a budget (msamp_task_budget, 7 KB): twice, a backlog of
 *             2 KB buffers, one a millisecond, until msamp's hook says it passed its budget (at
 *             most 12), then all freed (shedding load)
 *   drainer   (priority 4) msamp_poll() every 0.5 ms; at the end stops the others and checks
 * The tick runs at 10 kHz with time slicing, so tasks preempt one another inside msamp; the tick
 * hook counts the ticks that struck a task while msamp was busy in it.
 *
 * Console lines (semihosting): "msamp-freertos truth task=NAME alloc_bytes=.. alloc_n=..
 * inuse_bytes=.. inuse_n=.." per task, "msamp-freertos stats ..." (msamp's counters, the
 * preemptions inside msamp, the checks of the live table against heap_4), "msamp-demo heap
 * free=.. min_free=.. largest_free=.." (heap_4's own figures as msamp_end's HEAP record has them),
 * "msamp-freertos frag asked=.. free=.. largest_free=.." (the fragmentation failure),
 * "msamp-demo task-budget task=budgeted id=.. budget=.. peak=.. passed=.. hook_calls=..
 * hook_in_use=.." (the budgeted task's true peak in-use bytes, the times its own accounting passed
 * the budget, the hook's calls and the device's estimate at the last) and
 * "msamp-freertos done".
 *
 * Built with DEMO_HEAPWALK_MS=T (the demo-heapwalk variant, tests/postmortem/t_heapwalk.sh): the
 * leaker also makes four 12 KB blocks at start (sampled but for e^-12), one lost on purpose
 * (lost_block: its pointer dropped, the dead stack below scrubbed) and three held: from .bss
 * (held_by_static), from that block (held_by_heap) and from the leaker's frame (held_by_stack). T ms
 * into the run the drainer enters a critical section (nothing allocates or frees any more), walks
 * heap_4's free list through its own links and prints it ("msamp-freertos heapwalk free addr=A
 * size=S" per block, then the totals and vPortGetHeapStats' figures), prints "msamp-freertos
 * heapwalk end" and spins there: the test dumps RAM then (drain --heap-map).
 */
#include <stddef.h>
#include <stdint.h>

#include "FreeRTOS.h"
#include "board_api.h"
#include "msamp.h"
#include "msamp_freertos.h"
#include "msamp_heapdump.h"
#include "msamp_port.h"
#include "queue.h"
#include "task.h"
#include "timers.h"

#ifndef DEMO_INTERVAL
#define DEMO_INTERVAL 1024
#endif
#ifndef DEMO_RUN_MS
#define DEMO_RUN_MS 1500
#endif
#ifndef DEMO_SEED
#define DEMO_SEED 0x5eed
#endif
#define MS(n) ((TickType_t)((n) * configTICK_RATE_HZ / 1000))

enum owner { O_PRODUCER, O_CONSUMER, O_WORKER, O_LEAKER, O_TIMER, O_ISR, O_BUDGETED, O_COUNT };
static const char *const owner_name[O_COUNT] = {"producer", "consumer",    "worker",  "leaker",
                                                "TmrSvc",   "[interrupt]", "budgeted"};

/* What each owner allocated, and holds now (requested bytes): the truth. */
struct truth {
    uint64_t alloc_bytes, alloc_n, inuse_bytes, inuse_n;
};
static struct truth truth[O_COUNT];

/* Every block starts with its owner and size (blocks are at least 8 bytes). */
struct head {
    uint32_t owner, size;
};

void vApplicationTickHook(void);
void board_assert_failed(const char *file, int line);

static QueueHandle_t msg_q, isr_q;
static TimerHandle_t timer;
static volatile int stopping;
static volatile uint32_t done_tasks, failures, preempted_inside;
static volatile TickType_t frag_at; /* when the leaker's fragmenting phase starts */

/* --- console --- */
static char *put_u64(char *p, uint64_t v)
{
    return p + board_put_dec(p, v);
}

static char *put_str(char *p, const char *s)
{
    while (*s != '\0')
        *p++ = *s++;
    return p;
}

static char *put_kv(char *p, const char *key, uint64_t v)
{
    *p++ = ' ';
    p = put_str(p, key);
    *p++ = '=';
    return put_u64(p, v);
}

/* Ends the line begun at text (p: its end) and prints it. */
static void put_line(char *text, char *p)
{
    p = put_str(p, "\n");
    *p = '\0';
    board_console(text);
}

void board_assert_failed(const char *file, int line)
{
    char text[160];
    char *p = put_str(text, "msamp-freertos FAIL: configASSERT ");
    p = put_str(p, file);
    *p++ = ':';
    p = put_u64(p, (uint64_t)line);
    put_line(text, p);
    board_exit(1);
}

static _Noreturn void fail(const char *why)
{
    char text[160];
    char *p = put_str(text, "msamp-freertos FAIL: ");
    p = put_str(p, why);
    put_line(text, p);
    board_exit(1);
}

/* --- the truth's bookkeeping --- */
static uint32_t rng_next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void note_alloc(struct head *h, enum owner o, uint32_t size)
{
    h->owner = (uint32_t)o;
    h->size = size;
    struct truth *t = &truth[o];
    t->alloc_bytes += size;
    t->alloc_n++;
    t->inuse_bytes += size;
    t->inuse_n++;
}

static void note_free(const struct head *h)
{
    struct truth *t = &truth[h->owner < O_COUNT ? h->owner : 0];
    t->inuse_bytes -= h->size;
    t->inuse_n--;
}

/* Each named function is an allocation site of the profile: SITE keeps its frame (no tail call
 * into heap_alloc). */
#define SITE(call)                                                                                 \
    void *site_p = (call);                                                                         \
    __asm__ volatile("" : : "r"(site_p) : "memory");                                               \
    return site_p
static __attribute__((noinline)) void *heap_alloc(enum owner o, uint32_t size)
{
    struct head *h = pvPortMalloc(size);
    if (h == NULL) {
        failures = failures + 1u;
        return NULL;
    }
    taskENTER_CRITICAL();
    note_alloc(h, o, size);
    taskEXIT_CRITICAL();
    return h;
}

static void heap_free(void *p)
{
    if (p == NULL)
        return;
    taskENTER_CRITICAL();
    note_free(p);
    taskEXIT_CRITICAL();
    vPortFree(p);
}

static __attribute__((noinline)) void *produce_message(uint32_t size)
{
    SITE(heap_alloc(O_PRODUCER, size));
}

static __attribute__((noinline)) void *consumer_log_entry(uint32_t size)
{
    SITE(heap_alloc(O_CONSUMER, size));
}

static __attribute__((noinline)) void *worker_buffer(uint32_t size)
{
    SITE(heap_alloc(O_WORKER, size));
}

static __attribute__((noinline)) void *leak_record(void)
{
    SITE(heap_alloc(O_LEAKER, 256));
}

static __attribute__((noinline)) void *leaker_scratch(uint32_t size)
{
    SITE(heap_alloc(O_LEAKER, size));
}

static __attribute__((noinline)) void *frag_hole(void)
{
    SITE(heap_alloc(O_LEAKER, 1536));
}

static __attribute__((noinline)) void *frag_keeper(void)
{
    SITE(heap_alloc(O_LEAKER, 384));
}

static __attribute__((noinline)) void *frag_big(uint32_t size)
{
    __asm__ volatile("/* frag_big: not folded into leaker_scratch */" : : : "memory");
    SITE(heap_alloc(O_LEAKER, size));
}

static __attribute__((noinline)) void *timer_sample(uint32_t size)
{
    SITE(heap_alloc(O_TIMER, size));
}

static __attribute__((noinline)) void *backlog_buffer(void)
{
    SITE(heap_alloc(O_BUDGETED, 2048));
}

#ifdef DEMO_HEAPWALK_MS
/* The reachability scan's known answers (drain --heap-map, docs/POSTMORTEM.md). */
#define HW_BLOCK 12288u
struct held {
    struct head head; /* the demo's owner and size, as every block's */
    struct held *next;
};
static struct held *volatile held_static;
static uintptr_t heap_start;

/* Four sites of four sizes (sites of one size would be folded into one function). */
static __attribute__((noinline)) void *lost_block(void)
{
    SITE(heap_alloc(O_LEAKER, HW_BLOCK));
}

static __attribute__((noinline)) void *held_by_static(void)
{
    SITE(heap_alloc(O_LEAKER, HW_BLOCK + 8u));
}

static __attribute__((noinline)) void *held_by_heap(void)
{
    SITE(heap_alloc(O_LEAKER, HW_BLOCK + 16u));
}

static __attribute__((noinline)) void *held_by_stack(void)
{
    SITE(heap_alloc(O_LEAKER, HW_BLOCK + 24u));
}

/* Zeroes the calling task's dead stack (from its bottom up to the stack pointer), where the calls
 * that allocated the lost block left copies of its address: a scan of the whole stack block would
 * find them. The stack is the heap block that holds the stack pointer. */
static __attribute__((noinline)) void scrub_stack(void)
{
    const size_t top = (size_t)1 << (sizeof(size_t) * 8u - 1u);
    uintptr_t sp;
    taskENTER_CRITICAL();
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    uintptr_t b = heap_start;
    for (uint32_t n = 0; n < 100000u && b < heap_start + configTOTAL_HEAP_SIZE; n++) {
        size_t size = ((const size_t *)b)[1] & ~top;
        if (size == 0)
            break;
        if (sp >= b && sp < b + size) {
            for (volatile uint32_t *p = (volatile uint32_t *)(b + 8u); (uintptr_t)p < sp - 8u; p++)
                *p = 0;
            break;
        }
        b += size;
    }
    taskEXIT_CRITICAL();
}

static __attribute__((noinline)) void lose_block(void)
{
    void *p = lost_block();
    __asm__ volatile("" : : "r"(p) : "memory");
}
#endif

/* --- the interrupt's pool: 64-byte blocks, a bit each --- */
#define POOL_BLOCKS 32u
#define POOL_BLOCK 64u
static uint8_t pool[POOL_BLOCKS][POOL_BLOCK] __attribute__((aligned(8)));
static uint32_t pool_used; /* under the kernel's critical section (FromISR in the interrupt) */
static uint32_t isr_rng = 0x9e3779b9u;

static __attribute__((noinline)) void *isr_packet(void)
{
    UBaseType_t key = taskENTER_CRITICAL_FROM_ISR();
    struct head *h = NULL;
    uint32_t size = 16u + rng_next(&isr_rng) % (POOL_BLOCK - 16u);
    for (uint32_t i = 0; i < POOL_BLOCKS; i++) {
        if ((pool_used & (1u << i)) == 0) {
            pool_used |= 1u << i;
            h = (struct head *)pool[i];
            note_alloc(h, O_ISR, size);
            break;
        }
    }
    taskEXIT_CRITICAL_FROM_ISR(key);
    if (h == NULL)
        return NULL; /* the pool is empty: not an allocation */
    msamp_on_alloc(h, size);
    return h;
}

static void isr_packet_free(struct head *h)
{
    msamp_on_free(h);
    taskENTER_CRITICAL();
    note_free(h);
    pool_used &= ~(1u << (uint32_t)(((uint8_t(*)[POOL_BLOCK])(void *)h) - pool));
    taskEXIT_CRITICAL();
}

static void timer0_isr(void)
{
    BaseType_t woken = pdFALSE;
    void *p = isr_packet();
    if (p != NULL && xQueueSendFromISR(isr_q, &p, &woken) != pdPASS)
        isr_packet_free(p); /* the queue is full: not possible with a pool as deep */
    portYIELD_FROM_ISR(woken);
}

/* --- tasks --- */
static void finish(void)
{
    taskENTER_CRITICAL();
    done_tasks = done_tasks + 1u;
    taskEXIT_CRITICAL();
    vTaskSuspend(NULL);
}

static void producer(void *arg)
{
    uint32_t rng = 0x12345678u;
    while (!stopping) {
        for (int i = 0; i < 16; i++) {
            void *p = produce_message(24u + rng_next(&rng) % 257u);
            if (p != NULL)
                (void)xQueueSend(msg_q, &p, portMAX_DELAY);
        }
        vTaskDelay(1);
    }
    void *end = NULL;
    (void)xQueueSend(msg_q, &end, portMAX_DELAY); /* the consumer ends after the last message */
    finish();
    (void)arg;
}

static void consumer(void *arg)
{
    uint32_t rng = 0x2468ace1u;
    void *log[8] = {0};
    uint32_t next = 0;
    for (;;) {
        void *p;
        if (xQueueReceive(msg_q, &p, portMAX_DELAY) != pdPASS)
            continue;
        if (p == NULL)
            break;
        heap_free(p);
        if ((rng_next(&rng) & 3u) == 0) {
            heap_free(log[next]);
            log[next] = consumer_log_entry(32u + rng_next(&rng) % 97u);
            next = (next + 1u) % 8u;
        }
    }
    finish();
    (void)arg;
}

static void worker(void *arg)
{
    uint32_t rng = 0x0badf00du;
    void *kept[16] = {0};
    while (!stopping) {
        for (int i = 0; i < 24; i++) {
            uint32_t k = rng_next(&rng) % 16u;
            heap_free(kept[k]);
            kept[k] = worker_buffer(64u + rng_next(&rng) % 961u);
        }
        vTaskDelay(1);
    }
    finish();
    (void)arg;
}

/* The fragmenting phase: keepers between holes, the rest of the heap left to the other tasks
 * (their blocks all fit the holes), then a request no hole and not the largest block can hold. */
#define FRAG_PAIRS 160u
#define FRAG_RESERVE (32u * 1024u)
static void *frag_keepers[FRAG_PAIRS];
static uint32_t frag_asked, frag_free, frag_largest;
static void fragment(void)
{
    void *holes[FRAG_PAIRS];
    uint32_t n = 0;
    while (n < FRAG_PAIRS && xPortGetFreeHeapSize() > FRAG_RESERVE + 2048u) {
        holes[n] = frag_hole();
        frag_keepers[n] = frag_keeper();
        if (holes[n] == NULL || frag_keepers[n] == NULL)
            fail("fragmenting phase: the heap ran out");
        n++;
    }
    for (uint32_t i = 0; i < n; i++)
        heap_free(holes[i]);
    HeapStats_t h;
    vPortGetHeapStats(&h);
    frag_free = h.xAvailableHeapSpaceInBytes;
    frag_largest = h.xSizeOfLargestFreeBlockInBytes;
    frag_asked = frag_largest + (frag_free - frag_largest) / 2u;
    if (frag_asked <= frag_largest || frag_big(frag_asked) != NULL)
        fail("fragmenting phase: the heap did not fragment");
}

static void leaker(void *arg)
{
    uint32_t rng = 0x5eed5eedu;
#ifdef DEMO_HEAPWALK_MS
    lose_block();
    scrub_stack();
    held_static = held_by_static();
    if (held_static != NULL)
        held_static->next = held_by_heap();
    void *volatile on_stack = held_by_stack(); /* in the leaker's frame until it ends */
    scrub_stack();
#endif
    TickType_t last = xTaskGetTickCount();
    int fragmented = 0;
    while (!stopping) {
        if (!fragmented && frag_at != 0 && (int32_t)(xTaskGetTickCount() - frag_at) >= 0) {
            fragment();
            fragmented = 1;
        }
        (void)leak_record();
        for (int i = 0; i < 24; i++)
            heap_free(leaker_scratch(16u + rng_next(&rng) % 113u));
        vTaskDelayUntil(&last, MS(5));
    }
#ifdef DEMO_HEAPWALK_MS
    (void)on_stack;
#endif
    finish();
    (void)arg;
}

/* The budgeted task's truth: its id, its true peak in-use bytes, the times its own accounting
 * passed the budget; the hook's calls (it runs in the task that allocated), the last one's task
 * and estimate. */
#define BUDGET_BYTES (7u * 1024u)
static uint32_t budget_id, budget_passed;
static uint64_t budget_peak;
static volatile uint32_t hook_calls, hook_task, hook_in_use;

void msamp_port_task_over_budget(uint32_t task, size_t budget, size_t in_use)
{
    hook_calls = hook_calls + 1u;
    hook_task = task;
    hook_in_use = (uint32_t)in_use;
    (void)budget;
}

static void budgeted(void *arg)
{
    void *backlog[12];
    budget_id = msamp_freertos_task_id();
    if (msamp_task_budget(budget_id, BUDGET_BYTES) != 0)
        fail("msamp_task_budget");
    for (int round = 0; round < 2 && !stopping; round++) {
        uint32_t calls = hook_calls, n = 0;
        int over = 0;
        while (n < 12u && hook_calls == calls) {
            backlog[n++] = backlog_buffer();
            taskENTER_CRITICAL();
            uint64_t now = truth[O_BUDGETED].inuse_bytes;
            budget_peak = now > budget_peak ? now : budget_peak;
            taskEXIT_CRITICAL();
            if (!over && now > BUDGET_BYTES) {
                over = 1;
                budget_passed++;
            }
            vTaskDelay(MS(1));
        }
        while (n > 0) /* the hook said so (or 24 KB): shed the backlog */
            heap_free(backlog[--n]);
        vTaskDelay(MS(50));
    }
    while (!stopping)
        vTaskDelay(MS(5));
    finish();
    (void)arg;
}

static void sink(void *arg)
{
    while (!stopping || uxQueueMessagesWaiting(isr_q) != 0) {
        void *p;
        if (xQueueReceive(isr_q, &p, MS(1)) == pdPASS)
            isr_packet_free(p);
    }
    finish();
    (void)arg;
}

static void *timer_kept[4];
static uint32_t timer_next, timer_rng = 0xfeedbeefu;

static void on_timer(TimerHandle_t t)
{
    heap_free(timer_kept[timer_next]);
    timer_kept[timer_next] = timer_sample(32u + rng_next(&timer_rng) % 65u);
    timer_next = (timer_next + 1u) % 4u;
    (void)t;
}

/* Counts the ticks that preempt a task inside msamp (its context's reentrancy guard set): with a
 * shared context, another task's allocations would then go unsampled. */
void vApplicationTickHook(void)
{
    struct msamp_context *c = pvTaskGetThreadLocalStoragePointer(NULL, MSAMP_FREERTOS_TLS_INDEX);
    if (c != NULL && c->busy)
        preempted_inside = preempted_inside + 1u;
}

#define TIMER0_BASE 0x40000000u
#define NVIC_IPR_TIMER0 (*(volatile uint8_t *)(0xe000e400u + 8u))

/* Live-table entries that were live when the workload started: the kernel's own blocks. */
static uintptr_t kernel_blocks[64];
static uint32_t nkernel;

static void note_kernel_blocks(void)
{
    const struct msamp_heapdump_v3 *d = &msamp_heapdump;
    for (uint32_t i = 0; i < d->live_capacity && nkernel < 64u; i++) {
        uintptr_t a = atomic_load_explicit(&d->live_addr[i], memory_order_relaxed);
        if (a != 0)
            kernel_blocks[nkernel++] = a;
    }
}

/* Every entry of msamp's live table against heap_4's block headers (the heap's own accounting)
 * and the demo's: a block heap_4 has handed out, of the size and owner msamp has. Returns the
 * entries that do not match; *live: entries checked. */
static uint32_t check_live_table(uint32_t *live)
{
    const struct msamp_heapdump_v3 *d = &msamp_heapdump;
    uint32_t bad = 0;
    *live = 0;
    for (uint32_t i = 0; i < d->live_capacity; i++) {
        uintptr_t a = atomic_load_explicit(&d->live_addr[i], memory_order_relaxed);
        if (a == 0)
            continue;
        (*live)++;
        const struct head *h = (const struct head *)a;
        if (a >= (uintptr_t)pool && a < (uintptr_t)pool + sizeof(pool)) {
            uint32_t k = (uint32_t)((a - (uintptr_t)pool) / POOL_BLOCK);
            bad += (pool_used & (1u << k)) == 0 || h->owner != O_ISR || h->size != d->live_size[i];
            continue;
        }
        /* heap_4: a block's header (next free, size with the top bit set while allocated) sits
         * 8 bytes before what pvPortMalloc returned. */
        const size_t *hdr = (const size_t *)(a - 8u);
        size_t top = (size_t)1 << (sizeof(size_t) * 8u - 1u);
        if ((hdr[1] & top) == 0 || (hdr[1] & ~top) < d->live_size[i] + 8u) {
            bad++;
            continue;
        }
        int kernel = 0;
        for (uint32_t k = 0; k < nkernel; k++)
            kernel |= kernel_blocks[k] == a;
        if (!kernel && (h->owner >= O_COUNT || h->size != d->live_size[i]))
            bad++;
    }
    return bad;
}

#ifdef DEMO_HEAPWALK_MS
/* heap_4's free list as heap_4 links it, printed where nothing can change it (a critical
 * section that is never left): from the heap's first block (heap_start: the first allocation's
 * header) to the first free block, then by each block's pxNextFreeBlock until pxEnd (size 0). */

static _Noreturn void heapwalk_and_stop(void)
{
    HeapStats_t hs;
    vPortGetHeapStats(&hs);
    taskENTER_CRITICAL();
    const size_t top = (size_t)1 << (sizeof(size_t) * 8u - 1u);
    const uintptr_t lo = heap_start, hi = heap_start + configTOTAL_HEAP_SIZE;
    const size_t *b = (const size_t *)heap_start;
    char text[160];
    /* The first free block in address order: blocks by their sizes from the heap's start. */
    for (uint32_t n = 0; n < 100000u && (b[1] & top) != 0; n++)
        b = (const size_t *)((uintptr_t)b + (b[1] & ~top));
    uint64_t free_bytes = 0, blocks = 0, largest = 0;
    while ((uintptr_t)b >= lo && (uintptr_t)b < hi && b[1] != 0 && blocks < 100000u) {
        char *p = put_str(text, "msamp-freertos heapwalk free");
        p = put_kv(p, "addr", (uintptr_t)b);
        p = put_kv(p, "size", b[1]);
        put_line(text, p);
        free_bytes += b[1];
        largest = b[1] > largest ? b[1] : largest;
        blocks++;
        b = (const size_t *)b[0];
    }
    char *p = put_str(text, "msamp-freertos heapwalk");
    p = put_kv(p, "free_bytes", free_bytes);
    p = put_kv(p, "free_blocks", blocks);
    p = put_kv(p, "largest", largest);
    p = put_kv(p, "stats_free", hs.xAvailableHeapSpaceInBytes);
    p = put_kv(p, "stats_blocks", hs.xNumberOfFreeBlocks);
    p = put_kv(p, "stats_largest", hs.xSizeOfLargestFreeBlockInBytes);
    put_line(text, p);
    board_console("msamp-freertos heapwalk end\n");
    for (;;)
        __asm__ volatile("" ::: "memory");
}
#endif

static void drainer(void *arg)
{
    HeapStats_t before, after;
    vPortGetHeapStats(&before);
    note_kernel_blocks();
    NVIC_IPR_TIMER0 = 6u << (8u - configPRIO_BITS); /* below configMAX_SYSCALL_INTERRUPT_PRIORITY */
    if (board_timer_start(500, timer0_isr) != 0)
        fail("timer");
    if (xTimerStart(timer, 0) != pdPASS)
        fail("xTimerStart");
    TickType_t end = xTaskGetTickCount() + MS(DEMO_RUN_MS);
    frag_at = xTaskGetTickCount() + MS(DEMO_RUN_MS * 3 / 20);
    while ((int32_t)(xTaskGetTickCount() - end) < 0) {
#ifdef DEMO_HEAPWALK_MS
        if ((int32_t)(xTaskGetTickCount() - (end - MS(DEMO_RUN_MS) + MS(DEMO_HEAPWALK_MS))) >= 0)
            heapwalk_and_stop();
#endif
        (void)msamp_poll();
        vTaskDelay((TickType_t)(configTICK_RATE_HZ / 2000u));
    }
    *(volatile uint32_t *)(TIMER0_BASE) = 0; /* TIMER0 off */
    (void)xTimerStop(timer, portMAX_DELAY);
    stopping = 1;
    while (done_tasks < 6u) {
        (void)msamp_poll();
        vTaskDelay(1);
    }
    vTaskDelay(MS(2)); /* the timer service has stopped the timer */
    vPortGetHeapStats(&after);

    struct msamp_stats st;
    if (msamp_get_stats(&st) != 0)
        fail("msamp_get_stats");
    uint64_t demo_live = 0;
    for (int o = 0; o < O_COUNT; o++)
        if (o != O_ISR)
            demo_live += truth[o].inuse_n;
    uint32_t live = 0, bad = check_live_table(&live);
    uint64_t heap_live = (after.xNumberOfSuccessfulAllocations - after.xNumberOfSuccessfulFrees) -
                         (before.xNumberOfSuccessfulAllocations - before.xNumberOfSuccessfulFrees);

    char text[320];
    for (int o = 0; o < O_COUNT; o++) {
        char *p = put_str(text, "msamp-freertos truth task=");
        p = put_str(p, owner_name[o]);
        p = put_kv(p, "alloc_bytes", truth[o].alloc_bytes);
        p = put_kv(p, "alloc_n", truth[o].alloc_n);
        p = put_kv(p, "inuse_bytes", truth[o].inuse_bytes);
        p = put_kv(p, "inuse_n", truth[o].inuse_n);
        put_line(text, p);
    }
    char *p = put_str(text, "msamp-freertos stats");
    p = put_kv(p, "interval", DEMO_INTERVAL);
    p = put_kv(p, "samples", st.samples);
    p = put_kv(p, "reentrant", st.reentrant);
    p = put_kv(p, "ring_records", st.ring_records);
    p = put_kv(p, "live_full", st.live_full);
    p = put_kv(p, "stack_full", st.stack_full);
    p = put_kv(p, "no_frame", st.no_frame);
    p = put_kv(p, "raises", st.raises);
    p = put_kv(p, "preempted_inside", preempted_inside);
    p = put_kv(p, "failures", failures);
    p = put_kv(p, "live_entries", live);
    p = put_kv(p, "live_bad", bad);
    p = put_kv(p, "heap_live", heap_live);
    p = put_kv(p, "demo_live", demo_live);
    p = put_kv(p, "heap_free", after.xAvailableHeapSpaceInBytes);
    put_line(text, p);
    p = put_str(text, "msamp-freertos frag");
    p = put_kv(p, "asked", frag_asked);
    p = put_kv(p, "free", frag_free);
    p = put_kv(p, "largest_free", frag_largest);
    put_line(text, p);
    /* heap_4's own figures, which msamp_end's last poll reads too (nothing allocates between). */
    struct msamp_heap_stats hs;
    msamp_port_heap_stats(&hs);
    p = put_str(text, "msamp-demo heap");
    p = put_kv(p, "free", hs.free);
    p = put_kv(p, "min_free", hs.min_free);
    p = put_kv(p, "largest_free", hs.largest_free);
    p = put_kv(p, "free_blocks", hs.free_blocks);
    put_line(text, p);
    p = put_str(text, "msamp-demo task-budget task=budgeted");
    p = put_kv(p, "id", budget_id);
    p = put_kv(p, "budget", BUDGET_BYTES);
    p = put_kv(p, "peak", budget_peak);
    p = put_kv(p, "passed", budget_passed);
    p = put_kv(p, "hook_calls", hook_calls);
    p = put_kv(p, "hook_task", hook_task);
    p = put_kv(p, "hook_in_use", hook_in_use);
    put_line(text, p);
    (void)msamp_end();
    board_console("msamp-freertos done\n");
    board_exit(0);
    (void)arg;
}

int main(void)
{
    board_init();
#ifdef DEMO_HEAPWALK_MS
    void *first = pvPortMalloc(8); /* the heap's first block: its header starts the heap */
    heap_start = (uintptr_t)first - 8u;
    vPortFree(first);
#endif
    struct msamp_config cfg = {.interval = DEMO_INTERVAL, .resend_ms = 500, .seed = DEMO_SEED};
    if (msamp_init(&cfg) != 0)
        fail("msamp_init");
    msg_q = xQueueCreate(64, sizeof(void *));
    isr_q = xQueueCreate(POOL_BLOCKS, sizeof(void *));
    timer = xTimerCreate("sampler", MS(1), pdTRUE, NULL, on_timer);
    if (msg_q == NULL || isr_q == NULL || timer == NULL)
        fail("queues");
    static const struct {
        TaskFunction_t fn;
        const char *name;
        UBaseType_t prio;
    } tasks[] = {{drainer, "drainer", 4}, {producer, "producer", 2}, {consumer, "consumer", 3},
                 {worker, "worker", 2},   {leaker, "leaker", 3},     {sink, "sink", 3},
                 {budgeted, "budgeted", 2}};
    for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++)
        if (xTaskCreate(tasks[i].fn, tasks[i].name, 384, NULL, tasks[i].prio, NULL) != pdPASS)
            fail("xTaskCreate");
    vTaskStartScheduler();
    fail("the scheduler returned");
}
