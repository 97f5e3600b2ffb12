/* FreeRTOS configuration of the qemu-mps2-an385-freertos board (after the kernel's
 * CORTEX_MPS2_QEMU_IAR_GCC demo: Cortex-M3 at 25 MHz, SysTick): a 10 kHz tick with time slicing,
 * so tasks of one priority that allocate in tight loops preempt one another inside msamp all the
 * time, and what msamp's FreeRTOS layer needs (docs/FREERTOS.md). */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configCPU_CLOCK_HZ ((unsigned long)25000000)
#define configTICK_RATE_HZ ((TickType_t)10000)
#define configUSE_PREEMPTION 1
#define configUSE_TIME_SLICING 1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configMAX_PRIORITIES 6
#define configMINIMAL_STACK_SIZE ((unsigned short)160)
#define configMAX_TASK_NAME_LEN 16
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 1
#define configUSE_MALLOC_FAILED_HOOK 0
#define configCHECK_FOR_STACK_OVERFLOW 0
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configSUPPORT_STATIC_ALLOCATION 0
#define configTOTAL_HEAP_SIZE ((size_t)(256 * 1024))
#define configUSE_MUTEXES 1
#define configUSE_COUNTING_SEMAPHORES 1
#define configQUEUE_REGISTRY_SIZE 0
#define configUSE_TRACE_FACILITY 0
#define configENABLE_BACKWARD_COMPATIBILITY 0
#define configUSE_CO_ROUTINES 0
#define configMAX_CO_ROUTINE_PRIORITIES 1

/* Software timers: the timer service task allocates in its callback. */
#define configUSE_TIMERS 1
#define configTIMER_TASK_PRIORITY 3
#define configTIMER_QUEUE_LENGTH 8
#define configTIMER_TASK_STACK_DEPTH 256
#define configTIMER_SERVICE_TASK_NAME "TmrSvc"

/* msamp's FreeRTOS layer: a thread-local storage pointer per task, the scheduler's state, and the
 * deletion hook that gives a deleted task's context back. */
#define configNUM_THREAD_LOCAL_STORAGE_POINTERS 1
#define INCLUDE_xTaskGetSchedulerState 1
void msamp_freertos_task_deleted(void *task);
#define traceTASK_DELETE(pxTCB) msamp_freertos_task_deleted(pxTCB)

#define INCLUDE_vTaskPrioritySet 0
#define INCLUDE_uxTaskPriorityGet 0
#define INCLUDE_vTaskDelete 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_vTaskDelayUntil 1
#define INCLUDE_vTaskDelay 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1

/* Cortex-M3 in QEMU: 3 priority bits. The kernel at the lowest priority; interrupts at 5 (0xa0)
 * or numerically above may call the FromISR API (and allocate through msamp). */
#define configPRIO_BITS 3
#define configKERNEL_INTERRUPT_PRIORITY (7 << (8 - configPRIO_BITS))
#define configMAX_SYSCALL_INTERRUPT_PRIORITY (5 << (8 - configPRIO_BITS))

void board_assert_failed(const char *file, int line);
#define configASSERT(x)                                                                            \
    if ((x) == 0)                                                                                  \
    board_assert_failed(__FILE__, __LINE__)

#endif
