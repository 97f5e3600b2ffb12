/*
 * Full newlib's malloc (dlmalloc 2.6) under msamp on qemu-mps2-an385 (Cortex-M3), for drain's heap
 * walk of a dump (tests/postmortem/t_heapwalk.sh full, docs/POSTMORTEM.md "The heap map"): the
 * same heap as nano_fw.c's (48 blocks of 24..400 bytes, every other one freed, a block lost on
 * purpose, three held ones; every allocation sampled), then its own walk of the chunks from
 * __malloc_sbrk_base to the top chunk (__malloc_av_[2]), a chunk free when the next one's
 * PREV_INUSE bit is clear, the top chunk free: "newlib-heapwalk free addr=A size=S" per free
 * chunk, "newlib-heapwalk free_bytes=.. free_blocks=.. largest=.. fordblks=.. ordblks=.." (the last
 * two _mallinfo_r's, newlib's own count over its bins), "newlib-heapwalk end", and spins there for
 * the test to dump RAM.
 */
#include <malloc.h>
#include <reent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "board_api.h"
#include "msamp.h"

int main(void);
#define NL_ARENA_BYTES (32 * 1024)
#include "../newlib/sbrk_arena.h"

/* newlib's chunk (mallocr.c): the previous chunk's size when it is free, this one's size with
 * PREV_INUSE (bit 0), then in a free chunk its bin's links. */
struct chunk {
    size_t prev_size, size;
    struct chunk *fd, *bk;
};
extern struct chunk *__malloc_av_[];
extern char *__malloc_sbrk_base;
extern char __msamp_stack_lo[];

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
    return p + board_put_dec(p, v);
}

static void fail(const char *why)
{
    board_console("newlib-heapwalk FAIL ");
    board_console(why);
    board_console("\n");
    board_exit(1);
}

#define SITE(call)                                                                                 \
    void *site_p = (call);                                                                         \
    __asm__ volatile("" : : "r"(site_p) : "memory");                                               \
    return site_p
static __attribute__((noinline)) void *kept_block(size_t n)
{
    SITE(malloc(n));
}
static __attribute__((noinline)) void *lost_block(void)
{
    SITE(malloc(1000));
}
static __attribute__((noinline)) void *held_by_static(void)
{
    SITE(malloc(1008));
}
static __attribute__((noinline)) void *held_by_heap(void)
{
    SITE(malloc(1016));
}
static __attribute__((noinline)) void *held_by_stack(void)
{
    SITE(malloc(1024));
}

struct held {
    uint32_t tag;
    struct held *next;
};
static void *kept[48];
static struct held *volatile held_static;

static __attribute__((noinline)) void lose_block(void)
{
    void *p = lost_block();
    if (p == NULL)
        fail("lost_block");
    __asm__ volatile("" : : "r"(p) : "memory");
}

/* Zeroes the main stack below the stack pointer: the calls that allocated the lost block left
 * copies of its address there. */
static __attribute__((noinline)) void scrub_stack(void)
{
    uintptr_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (volatile uint32_t *p = (volatile uint32_t *)(void *)__msamp_stack_lo; (uintptr_t)p < sp - 8u; p++)
        *p = 0;
}

static void put_free(uint64_t *bytes, uint64_t *n, uint64_t *largest, uintptr_t a, size_t size)
{
    char text[96];
    char *p = put_str(text, "newlib-heapwalk free");
    p = put_kv(p, "addr", a);
    p = put_kv(p, "size", size);
    p = put_str(p, "\n");
    *p = '\0';
    board_console(text);
    *bytes += size;
    *largest = size > *largest ? size : *largest;
    (*n)++;
}

static _Noreturn __attribute__((noinline)) void walk_and_stop(void)
{
    char text[200];
    uint64_t bytes = 0, n = 0, largest = 0;
    const struct chunk *top = __malloc_av_[2];
    uintptr_t a = ((uintptr_t)__malloc_sbrk_base + 7u) & ~(uintptr_t)7u;
    for (unsigned steps = 0; a < (uintptr_t)top && steps < 100000u; steps++) {
        const struct chunk *c = (const struct chunk *)a;
        size_t size = c->size & ~(size_t)3u;
        if (size < 16u)
            fail("a chunk's size");
        const struct chunk *next = (const struct chunk *)(a + size);
        if ((next->size & 1u) == 0)
            put_free(&bytes, &n, &largest, a, size);
        a += size;
    }
    if (a != (uintptr_t)top)
        fail("the walk missed the top chunk");
    put_free(&bytes, &n, &largest, a, top->size & ~(size_t)3u);
    struct mallinfo mi = _mallinfo_r(_REENT);
    char *p = put_str(text, "newlib-heapwalk");
    p = put_kv(p, "free_bytes", bytes);
    p = put_kv(p, "free_blocks", n);
    p = put_kv(p, "largest", largest);
    p = put_kv(p, "fordblks", (uint64_t)mi.fordblks);
    p = put_kv(p, "ordblks", (uint64_t)mi.ordblks);
    p = put_str(p, "\n");
    *p = '\0';
    board_console(text);
    board_console("newlib-heapwalk end\n");
    for (;;)
        __asm__ volatile("" ::: "memory");
}

int main(void)
{
    board_init();
    struct msamp_config cfg = {.interval = 1};
    if (msamp_init(&cfg) != 0)
        fail("msamp_init");
    uint32_t rng = 0x1234567u;
    for (int i = 0; i < 48; i++) {
        rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
        kept[i] = kept_block(24u + rng % 377u);
        if (kept[i] == NULL)
            fail("kept_block");
    }
    for (int i = 0; i < 48; i += 2) {
        free(kept[i]);
        kept[i] = NULL;
    }
    lose_block();
    scrub_stack();
    held_static = held_by_static();
    if (held_static == NULL)
        fail("held_by_static");
    held_static->next = held_by_heap();
    void *volatile on_stack = held_by_stack();
    scrub_stack();
    (void)on_stack;
    walk_and_stop();
}
