/*
 * A FreeRTOS-like allocator for the README's "Profiling another allocator" block (test
 * docs-wrap-allocator): pvPortMalloc/vPortFree over a static arena of fixed 128-byte blocks with a
 * free list, no malloc. It is the "real" allocator the block's wrappers call (__real_pvPortMalloc).
 */
#include <stddef.h>
#include <stdint.h>

void *pvPortMalloc(size_t size);
void vPortFree(void *p);

#define BLOCK 128
#define BLOCKS 4096

static _Alignas(16) uint8_t arena[BLOCKS][BLOCK];
static void *free_list;
static size_t used;

void *pvPortMalloc(size_t size)
{
    if (size == 0 || size > BLOCK)
        return NULL;
    if (free_list != NULL) {
        void *p = free_list;
        free_list = *(void **)p;
        return p;
    }
    return used < BLOCKS ? arena[used++] : NULL;
}

void vPortFree(void *p)
{
    if (p == NULL)
        return;
    *(void **)p = free_list;
    free_list = p;
}
