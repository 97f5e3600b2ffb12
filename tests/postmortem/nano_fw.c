/*
 * newlib-nano's malloc under msamp on qemu-mps2-an385 (Cortex-M3), for drain's heap walk of a
 * dump (tests/postmortem/t_heapwalk.sh nano, docs/POSTMORTEM.md "The heap map"). It makes heap_fw.h's
 * heap (48 blocks of 24..400 bytes, every other one freed, a block lost on purpose and three held
 * ones, every allocation sampled), then walks newlib-nano's free list (__malloc_free_list, address order) and
 * prints it: "nano-heapwalk free addr=A size=S" per chunk, "nano-heapwalk free_bytes=..
 * free_blocks=.. largest=..", "nano-heapwalk end", and spins there for the test to dump RAM.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define HEAP_FW_TAG "nano-heapwalk"
#include "heap_fw.h"

int main(void);
#define NL_ARENA_BYTES (24 * 1024)
#include "../newlib/sbrk_arena.h"

/* newlib-nano's chunk (nano-mallocr.c): its size, then (free) the next free chunk. */
struct chunk {
    long size;
    struct chunk *next;
};
extern struct chunk *__malloc_free_list;

static _Noreturn __attribute__((noinline)) void walk_and_stop(void)
{
    char text[160];
    uint64_t bytes = 0, n = 0, largest = 0;
    for (const struct chunk *c = __malloc_free_list; c != NULL && n < 100000u; c = c->next) {
        char *p = put_str(text, "nano-heapwalk free");
        p = put_kv(p, "addr", (uintptr_t)c);
        p = put_kv(p, "size", (uint64_t)c->size);
        p = put_str(p, "\n");
        *p = '\0';
        board_console(text);
        bytes += (uint64_t)c->size;
        largest = (uint64_t)c->size > largest ? (uint64_t)c->size : largest;
        n++;
    }
    char *p = put_str(text, "nano-heapwalk");
    p = put_kv(p, "free_bytes", bytes);
    p = put_kv(p, "free_blocks", n);
    p = put_kv(p, "largest", largest);
    p = put_str(p, "\n");
    *p = '\0';
    board_console(text);
    board_console("nano-heapwalk end\n");
    for (;;)
        __asm__ volatile("" ::: "memory");
}

int main(void)
{
    heap_fw_run(walk_and_stop);
}
