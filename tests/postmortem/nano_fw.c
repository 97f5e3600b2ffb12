/*
 * newlib-nano's malloc under msamp on qemu-mps2-an385 (Cortex-M3), for drain's heap walk of a
 * dump (tests/postmortem/t_heapwalk.sh nano, docs/POSTMORTEM.md "The heap map"). Every allocation
 * sampled (interval 1). It fragments its heap (48 blocks of 24..400 bytes, every other one freed,
 * the rest held from .bss), makes a block lost on purpose (lost_block: its pointer dropped, the
 * dead part of the main stack cleared) and three held ones (from .bss, from that block, from
 * main's frame), then walks newlib-nano's free list (__malloc_free_list, address order) and
 * prints it: "nano-heapwalk free addr=A size=S" per chunk, "nano-heapwalk free_bytes=..
 * free_blocks=.. largest=..", "nano-heapwalk end", and spins there for the test to dump RAM.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "board_api.h"
#include "msamp.h"

int main(void);
#define NL_ARENA_BYTES (24 * 1024)
#include "../newlib/sbrk_arena.h"

/* newlib-nano's chunk (nano-mallocr.c): its size, then (free) the next free chunk. */
struct chunk {
    long size;
    struct chunk *next;
};
extern struct chunk *__malloc_free_list;
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
    board_console("nano-heapwalk FAIL ");
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
