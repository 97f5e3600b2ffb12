/*
 * msamp's FreeRTOS layer (docs/FREERTOS.md): per-task sampler contexts, the critical section and
 * the clock of an msamp port running under FreeRTOS, and the names of the tasks for the stream.
 *
 *   contexts  each task gets its own struct msamp_context the first time it allocates, from a
 *             static pool of MSAMP_FREERTOS_MAX_TASKS, found again through the task's
 *             thread-local storage pointer MSAMP_FREERTOS_TLS_INDEX (so a task preempted inside
 *             msamp holds only its own reentrancy guard, and each task draws its own gaps).
 *             Interrupt handlers share one context (task id 1, "[interrupt]"); code that allocates
 *             before vTaskStartScheduler(), and tasks beyond the pool, share another (id 2,
 *             "[no task]"). Tasks have ids 3, 4, ... in the order they first allocate: each
 *             sampled allocation carries its id (a SAMPLE_TASK record) and msamp_poll() sends each
 *             id's name once (TASK records).
 *   lock      portSET_INTERRUPT_MASK_FROM_ISR(): the kernel's own critical section, legal in tasks
 *             and in interrupts at or below configMAX_SYSCALL_INTERRUPT_PRIORITY (those that may
 *             call the FromISR API); higher-priority interrupts must not allocate through msamp,
 *             as they must not call FreeRTOS.
 *   clock     the kernel's tick count (xTaskGetTickCount), extended to 64 bits, at
 *             configTICK_RATE_HZ.
 *   deletion  with `#define traceTASK_DELETE(t) msamp_freertos_task_deleted(t)` in
 *             FreeRTOSConfig.h, a deleted task's context goes back to the pool (else it stays
 *             taken: size the pool for every task the firmware ever creates).
 * The architecture's port still supplies the stack walk and the build-id; built with
 * MSAMP_PORT_RTOS=1 it leaves contexts, lock and clock to this layer (port/arm: Cortex-M).
 * FreeRTOSConfig.h needs configNUM_THREAD_LOCAL_STORAGE_POINTERS > MSAMP_FREERTOS_TLS_INDEX and
 * INCLUDE_xTaskGetSchedulerState 1.
 */
#ifndef MSAMP_FREERTOS_H
#define MSAMP_FREERTOS_H

#include <stdint.h>

/* Task contexts in the pool (RAM per task: docs/FREERTOS.md). */
#ifndef MSAMP_FREERTOS_MAX_TASKS
#define MSAMP_FREERTOS_MAX_TASKS 16
#endif
/* The thread-local storage pointer msamp takes in every task. */
#ifndef MSAMP_FREERTOS_TLS_INDEX
#define MSAMP_FREERTOS_TLS_INDEX 0
#endif
/* Bytes of a task's name kept for the stream (configMAX_TASK_NAME_LEN's default is 16). */
#ifndef MSAMP_FREERTOS_NAME_LEN
#define MSAMP_FREERTOS_NAME_LEN 16
#endif

/* The fixed task ids. */
#define MSAMP_FREERTOS_ID_ISR 1u
#define MSAMP_FREERTOS_ID_NONE 2u
#define MSAMP_FREERTOS_ID_FIRST 3u

/* traceTASK_DELETE's hook: gives the task's context back to the pool. */
void msamp_freertos_task_deleted(void *task);

/* The task id of the caller's context (for tests and firmware checks). */
uint32_t msamp_freertos_task_id(void);

#endif
