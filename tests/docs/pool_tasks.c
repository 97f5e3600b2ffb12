/*
 * The program of test docs-wrap-allocator: two sites that allocate from pvPortMalloc (tests/docs/
 * pool.c), in a file of their own (--wrap applies to calls between object files). create_task:
 * TASKS blocks, the last TASKS_LIVE kept; send_message: MESSAGES blocks, each freed at once.
 * With MSAMP_INTERVAL=1 the profile must count exactly these.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

void *pvPortMalloc(size_t size);
void vPortFree(void *p);

#define TASKS 300
#define TASKS_LIVE 100
#define TASK_BYTES 96
#define MESSAGES 1000
#define MESSAGE_BYTES 40

static void *tasks[TASKS];

__attribute__((noinline)) static void *create_task(int i)
{
    void *t = pvPortMalloc(TASK_BYTES);
    if (t != NULL)
        memset(t, i, TASK_BYTES);
    return t;
}

__attribute__((noinline)) static void send_message(int i)
{
    char *m = pvPortMalloc(MESSAGE_BYTES);
    if (m == NULL)
        return;
    m[0] = (char)i;
    vPortFree(m);
}

int main(void)
{
    for (int i = 0; i < TASKS; i++)
        tasks[i] = create_task(i);
    for (int i = 0; i < MESSAGES; i++)
        send_message(i);
    for (int i = 0; i < TASKS - TASKS_LIVE; i++)
        vPortFree(tasks[i]);
    printf("tasks=%d live=%d task_bytes=%d messages=%d message_bytes=%d\n", TASKS, TASKS_LIVE, TASK_BYTES,
           MESSAGES, MESSAGE_BYTES);
    return 0;
}
