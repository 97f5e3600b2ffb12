/*
 * The heap the post-mortem heap-walk firmwares make (nano_fw.c: newlib-nano, newlib_fw.c: full
 * newlib; tests/postmortem/t_heapwalk.sh, docs/POSTMORTEM.md "The heap map"), every allocation
 * sampled (interval 1): 48 blocks of 24..400 bytes (kept_block), every other one freed, the rest
 * held from .bss; a block lost on purpose (lost_block: its pointer dropped, the dead part of the
 * main stack cleared) and three held ones (from .bss, from that block, from a live frame). Then
 * heap_fw_run calls the firmware's walk, which prints its allocator's free chunks and spins.
 * Included once, by the firmware's file, after it defines HEAP_FW_TAG (its console lines' tag).
 */
#ifndef HEAP_FW_H
#define HEAP_FW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "board_api.h"
#include "msamp.h"

#ifndef HEAP_FW_TAG
#error "heap_fw.h: define HEAP_FW_TAG"
#endif

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
    board_console(HEAP_FW_TAG " FAIL ");
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

/* Makes the heap, then calls walk (which does not return) from the frame holding held_by_stack's
 * block. */
static _Noreturn __attribute__((noinline)) void heap_fw_run(void (*walk)(void))
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
    walk();
    (void)on_stack;
    for (;;)
        __asm__ volatile("" ::: "memory");
}

#endif
