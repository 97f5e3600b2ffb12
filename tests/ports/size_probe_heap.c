/* The allocator of the size probe (size_probe.c), in a file of its own so that the probe's calls
 * are references the linker's --wrap can route through msamp. A bump allocator over 256 bytes. */
#include <stddef.h>
#include <stdint.h>

void *malloc(size_t size);
void free(void *p);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t size);

static uint8_t heap[256];
static size_t used;

void *malloc(size_t size)
{
    size = (size + 7u) & ~(size_t)7u;
    if (size > sizeof heap - used)
        return NULL;
    used += size;
    return &heap[used - size];
}

void free(void *p)
{
    (void)p;
}

/* Memory from the bump allocator is never reused: zero already. */
void *calloc(size_t n, size_t size)
{
    return n != 0 && size > SIZE_MAX / n ? NULL : malloc(n * size);
}

void *realloc(void *p, size_t size)
{
    (void)p;
    return malloc(size);
}
