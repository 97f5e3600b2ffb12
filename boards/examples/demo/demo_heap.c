/*
 * The demo firmware's own allocator: first-fit over a static arena with an address-ordered free
 * list and coalescing, interrupt-safe through the board's IRQ mask. It is the "real" allocator
 * msamp wraps (-Wl,--wrap=malloc makes __real_malloc resolve here); msamp knows nothing about it.
 */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "demo.h"
#include "msamp_port.h"

#ifndef DEMO_HEAP_BYTES
#if defined(DEMO_SMALL_RAM) && DEMO_SMALL_RAM /* qemu-microbit's 16 KiB of RAM (demo.c's DEMO_SMALL_RAM) */
#define DEMO_HEAP_BYTES (9u * 1024u)
#else
#define DEMO_HEAP_BYTES (512u * 1024u)
#endif
#endif
#define ALIGN 16u
#define HDR 16u /* keeps payloads 16-byte aligned */
#define MIN_BLOCK (HDR + ALIGN)
#define USED_MAGIC 0x55534544u

struct block {
    _Alignas(HDR) size_t size; /* whole block, header included (16 bytes on 32-bit targets too) */
    union {
        struct block *next; /* free: next free block by address */
        uint32_t magic;     /* used: USED_MAGIC */
    } u;
};
_Static_assert(sizeof(struct block) == HDR, "header size");

static _Alignas(16) uint8_t arena[DEMO_HEAP_BYTES];
static struct block *free_list;
static int ready;
static size_t heap_in_use;
static size_t heap_most_used; /* the low watermark: DEMO_HEAP_BYTES - the most ever in use */

static void heap_setup(void)
{
    free_list = (struct block *)(void *)arena;
    free_list->size = DEMO_HEAP_BYTES;
    free_list->u.next = NULL;
    ready = 1;
}

static struct block *header_of(void *p)
{
    return (struct block *)(void *)((uint8_t *)p - HDR);
}

static void *heap_alloc(size_t n)
{
    if (n > DEMO_HEAP_BYTES)
        return NULL;
    size_t need = HDR + ((n + ALIGN - 1) & ~(size_t)(ALIGN - 1));
    if (need < MIN_BLOCK)
        need = MIN_BLOCK;
    uintptr_t irq = board_irq_save();
    if (!ready)
        heap_setup();
    struct block **link = &free_list;
    struct block *b = free_list;
    while (b != NULL && b->size < need) {
        link = &b->u.next;
        b = b->u.next;
    }
    if (b == NULL) {
        board_irq_restore(irq);
        return NULL;
    }
    if (b->size - need >= MIN_BLOCK) {
        struct block *rest = (struct block *)(void *)((uint8_t *)b + need);
        rest->size = b->size - need;
        rest->u.next = b->u.next;
        *link = rest;
        b->size = need;
    } else {
        *link = b->u.next;
    }
    b->u.magic = USED_MAGIC;
    heap_in_use += b->size;
    if (heap_in_use > heap_most_used)
        heap_most_used = heap_in_use;
    board_irq_restore(irq);
    return (uint8_t *)b + HDR;
}

static void heap_release(void *p)
{
    if (p == NULL)
        return;
    struct block *b = header_of(p);
    uintptr_t irq = board_irq_save();
    if (b->u.magic != USED_MAGIC)
        demo_fail("free of a pointer the heap did not hand out");
    heap_in_use -= b->size;
    struct block *prev = NULL, *cur = free_list;
    while (cur != NULL && cur < b) {
        prev = cur;
        cur = cur->u.next;
    }
    b->u.next = cur;
    if (cur != NULL && (uint8_t *)b + b->size == (uint8_t *)cur) {
        b->size += cur->size;
        b->u.next = cur->u.next;
    }
    if (prev == NULL) {
        free_list = b;
    } else if ((uint8_t *)prev + prev->size == (uint8_t *)b) {
        prev->size += b->size;
        prev->u.next = b->u.next;
    } else {
        prev->u.next = b;
    }
    board_irq_restore(irq);
}

void *malloc(size_t n)
{
    return heap_alloc(n);
}

void free(void *p)
{
    heap_release(p);
}

void *calloc(size_t n, size_t m)
{
    if (m != 0 && n > SIZE_MAX / m)
        return NULL;
    uint8_t *p = heap_alloc(n * m);
    if (p != NULL)
        for (size_t i = 0; i < n * m; i++)
            p[i] = 0;
    return p;
}

void *realloc(void *old, size_t n)
{
    if (old == NULL)
        return heap_alloc(n);
    if (n == 0) {
        heap_release(old);
        return NULL;
    }
    size_t have = header_of(old)->size - HDR;
    if (n <= have)
        return old;
    uint8_t *p = heap_alloc(n);
    if (p == NULL)
        return NULL;
    for (size_t i = 0; i < have; i++)
        p[i] = ((const uint8_t *)old)[i];
    heap_release(old);
    return p;
}

/* The heap's state for msamp (docs/HEALTH.md), and for the demo's last line: a walk of the free
 * list under the heap's own lock. */
void msamp_port_heap_stats(struct msamp_heap_stats *out)
{
    size_t largest = 0, blocks = 0;
    uintptr_t irq = board_irq_save();
    if (!ready)
        heap_setup();
    for (const struct block *b = free_list; b != NULL; b = b->u.next) {
        blocks++;
        if (b->size > largest)
            largest = b->size;
    }
    out->free = DEMO_HEAP_BYTES - heap_in_use;
    out->min_free = DEMO_HEAP_BYTES - heap_most_used;
    board_irq_restore(irq);
    out->total = DEMO_HEAP_BYTES;
    out->largest_free = largest > HDR ? largest - HDR : 0; /* the most one request can have */
    out->free_blocks = blocks;
    out->valid = MSAMP_HEAP_TOTAL | MSAMP_HEAP_FREE | MSAMP_HEAP_MIN_FREE |
                 MSAMP_HEAP_LARGEST_FREE | MSAMP_HEAP_FREE_BLOCKS;
}

size_t demo_heap_block_bytes(const void *p)
{
    return header_of((void *)(uintptr_t)p)->size;
}

size_t demo_heap_in_use(void)
{
    return heap_in_use;
}
