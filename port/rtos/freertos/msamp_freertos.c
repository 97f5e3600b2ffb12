/* msamp's FreeRTOS layer: per-task contexts (thread-local storage pointers), the kernel's
 * critical section, the tick clock, the task names (msamp_freertos.h). */
#include "msamp_freertos.h"

#include <stddef.h>

#include "FreeRTOS.h"
#include "msamp_port.h"
#include "msamp_port_shapes.h"
#include "task.h"

#if configNUM_THREAD_LOCAL_STORAGE_POINTERS <= MSAMP_FREERTOS_TLS_INDEX
#error "msamp_freertos: configNUM_THREAD_LOCAL_STORAGE_POINTERS must exceed MSAMP_FREERTOS_TLS_INDEX"
#endif
#if INCLUDE_xTaskGetSchedulerState != 1
#error "msamp_freertos: set INCLUDE_xTaskGetSchedulerState to 1"
#endif
_Static_assert(MSAMP_CFG_MAX_CONTEXTS >= MSAMP_FREERTOS_MAX_TASKS + 2,
               "MSAMP_CFG_MAX_CONTEXTS: every task's context, the interrupts' and [no task]'s");
_Static_assert(MSAMP_FREERTOS_MAX_TASKS >= 1 && MSAMP_FREERTOS_MAX_TASKS <= 4096,
               "MSAMP_FREERTOS_MAX_TASKS: 1..4096");

/* Whether the caller runs in an interrupt handler. Cortex-M ports have xPortIsInsideInterrupt();
 * another port defines MSAMP_FREERTOS_IN_ISR() in its FreeRTOSConfig.h. */
#ifndef MSAMP_FREERTOS_IN_ISR
#define MSAMP_FREERTOS_IN_ISR() (xPortIsInsideInterrupt() != pdFALSE)
#endif

struct task_slot {
    struct msamp_context ctx; /* ctx.task: the id, 0 while the slot is free */
    TaskHandle_t handle;
    char name[MSAMP_FREERTOS_NAME_LEN + 1];
};

static struct msamp_context isr_ctx = {.task = MSAMP_FREERTOS_ID_ISR};
static struct msamp_context none_ctx = {.task = MSAMP_FREERTOS_ID_NONE};
static struct task_slot slots[MSAMP_FREERTOS_MAX_TASKS];
/* Ids given so far (the next is next_id): msamp_port_tasks(). Under the lock. */
static uint32_t next_id = MSAMP_FREERTOS_ID_FIRST;
/* The tick count extended to 64 bits (the clock). Under the lock. */
static struct msamp_counter32 ticks;

msamp_port_lock_t msamp_port_lock(void)
{
    return (msamp_port_lock_t)portSET_INTERRUPT_MASK_FROM_ISR();
}

void msamp_port_unlock(msamp_port_lock_t token)
{
    portCLEAR_INTERRUPT_MASK_FROM_ISR((UBaseType_t)token);
}

uint64_t msamp_port_time(void)
{
    _Static_assert(sizeof(TickType_t) == 4, "msamp_freertos: a 32-bit TickType_t");
    int isr = MSAMP_FREERTOS_IN_ISR();
    msamp_port_lock_t key = msamp_port_lock();
    TickType_t t = isr ? xTaskGetTickCountFromISR() : xTaskGetTickCount();
    uint64_t now = msamp_counter32_extend(&ticks, t);
    msamp_port_unlock(key);
    return now;
}

uint64_t msamp_port_time_hz(void)
{
    return configTICK_RATE_HZ;
}

/* The calling task's first allocation: a slot of the pool, its id and name, its TLS pointer. */
static struct msamp_context *attach(void)
{
    TaskHandle_t self = xTaskGetCurrentTaskHandle();
    struct msamp_context *c = &none_ctx;
    msamp_port_lock_t key = msamp_port_lock();
    for (uint32_t i = 0; i < MSAMP_FREERTOS_MAX_TASKS; i++) {
        struct task_slot *s = &slots[i];
        if (s->ctx.task != 0 || next_id > UINT16_MAX)
            continue;
        const char *name = pcTaskGetName(self);
        uint32_t n = 0;
        for (; name != NULL && name[n] != '\0' && n < MSAMP_FREERTOS_NAME_LEN; n++)
            s->name[n] = name[n];
        s->name[n] = '\0';
        s->handle = self;
        s->ctx = (struct msamp_context){.task = (uint16_t)next_id++};
        c = &s->ctx;
        break;
    }
    msamp_port_unlock(key);
    /* A task beyond the pool keeps no pointer: it asks again, and finds room once a task is
     * deleted. */
    if (c != &none_ctx)
        vTaskSetThreadLocalStoragePointer(self, MSAMP_FREERTOS_TLS_INDEX, c);
    return c;
}

struct msamp_context *msamp_port_context(void)
{
    if (MSAMP_FREERTOS_IN_ISR())
        return &isr_ctx;
    if (xTaskGetSchedulerState() == taskSCHEDULER_NOT_STARTED)
        return &none_ctx;
    void *c = pvTaskGetThreadLocalStoragePointer(NULL, MSAMP_FREERTOS_TLS_INDEX);
    return c != NULL ? (struct msamp_context *)c : attach();
}

void msamp_freertos_task_deleted(void *task)
{
    TaskHandle_t t = task;
    struct msamp_context *c = pvTaskGetThreadLocalStoragePointer(t, MSAMP_FREERTOS_TLS_INDEX);
    if (c == NULL || c == &none_ctx)
        return;
    vTaskSetThreadLocalStoragePointer(t, MSAMP_FREERTOS_TLS_INDEX, NULL);
    msamp_context_detach(c);
    msamp_port_lock_t key = msamp_port_lock();
    c->task = 0; /* the slot is free; its id is not given again */
    msamp_port_unlock(key);
}

uint32_t msamp_freertos_task_id(void)
{
    return msamp_port_context()->task;
}

uint32_t msamp_port_tasks(void)
{
    return next_id - 1u;
}

const char *msamp_port_task_name(uint32_t id)
{
    if (id == MSAMP_FREERTOS_ID_ISR)
        return "[interrupt]";
    if (id == MSAMP_FREERTOS_ID_NONE)
        return "[no task]";
    for (uint32_t i = 0; i < MSAMP_FREERTOS_MAX_TASKS; i++)
        if (slots[i].ctx.task == id)
            return slots[i].name;
    return NULL; /* deleted since: its name is gone */
}
