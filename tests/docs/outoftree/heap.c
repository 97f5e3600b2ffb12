/* The out-of-tree firmware's C library pieces (test docs-firmware-outoftree), as a bare-metal
 * firmware brings them along: a small first-fit heap (malloc, free, calloc, realloc) and
 * memset/memcpy. A file of its own: --wrap reroutes only calls from other files. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

void *malloc(size_t n);
void free(void *p);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t n);

/* The heap: blocks with a size header, a free list searched first-fit, no coalescing (the sizes
 * here repeat). */
struct block {
    size_t size;
    struct block *next;
};
static _Alignas(16) unsigned char heap[1 << 20];
static size_t heap_used;
static struct block *free_list;

void *malloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    for (struct block **pp = &free_list; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->size >= n) {
            struct block *b = *pp;
            *pp = b->next;
            return b + 1;
        }
    }
    if (heap_used + sizeof(struct block) + n > sizeof heap)
        return NULL;
    struct block *b = (struct block *)(heap + heap_used);
    heap_used += sizeof(struct block) + n;
    b->size = n;
    return b + 1;
}

void free(void *p)
{
    if (p == NULL)
        return;
    struct block *b = (struct block *)p - 1;
    b->next = free_list;
    free_list = b;
}

void *calloc(size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    void *p = malloc(n * size);
    if (p != NULL)
        memset(p, 0, n * size);
    return p;
}

void *realloc(void *p, size_t n)
{
    if (p == NULL)
        return malloc(n);
    struct block *b = (struct block *)p - 1;
    if (b->size >= n)
        return p;
    void *q = malloc(n);
    if (q != NULL) {
        memcpy(q, p, b->size);
        free(p);
    }
    return q;
}

void *memset(void *d, int c, size_t n)
{
    volatile unsigned char *p = d;
    while (n--)
        *p++ = (unsigned char)c;
    return d;
}

void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
    volatile unsigned char *p = d;
    const unsigned char *q = s;
    while (n--)
        *p++ = *q++;
    return d;
}

