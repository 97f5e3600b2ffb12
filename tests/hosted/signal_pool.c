/* A fixed-block pool allocator for signal_app.c: async-signal-safe because only the signal handler
 * uses it (one context, no lock). */
#include <stddef.h>

#define POOL_BLOCKS 64
#define BLOCK 48

void *pool_alloc(size_t size);
void pool_free(void *p);
void pool_init(void);

static unsigned char pool[POOL_BLOCKS][BLOCK];
static void *free_list[POOL_BLOCKS];
static unsigned top;

void pool_init(void)
{
    for (unsigned i = 0; i < POOL_BLOCKS; i++)
        free_list[top++] = pool[i];
}

void *pool_alloc(size_t size)
{
    if (size > BLOCK || top == 0)
        return NULL;
    return free_list[--top];
}

void pool_free(void *p)
{
    if (p != NULL && top < POOL_BLOCKS)
        free_list[top++] = p;
}
