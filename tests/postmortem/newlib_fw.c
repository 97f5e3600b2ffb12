/*
 * Full newlib's malloc (dlmalloc 2.6) under msamp on qemu-mps2-an385 (Cortex-M3), for drain's
 * heap walk of a dump (tests/postmortem/t_heapwalk.sh full, docs/POSTMORTEM.md "The heap map"):
 * heap_fw.h's heap, as nano_fw.c's (48 blocks of 24..400 bytes, every other one freed, a block lost on
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

#define HEAP_FW_TAG "newlib-heapwalk"
#include "heap_fw.h"

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
    heap_fw_run(walk_and_stop);
}
