/*
 * The in-RAM tables of msamp (MSAMP_CFG_HEAPDUMP: the default, but for the tiny profile), version
 * 2: a layout a host can read from a RAM dump or crash dump
 * (symbol `msamp_heapdump`, section .bss.msamp) to rebuild the in-use profile without the device's
 * help, as Fuchsia's heapdump does.
 *
 * Reading rules:
 * - The block is valid only when `magic` == MSAMP_HEAPDUMP_MAGIC; it is written last at init.
 * - All fields are in the device's byte order; uintptr_t is `ptr_size` bytes. The header (magic
 *   to reserved) is 56 bytes; the arrays follow it in the order declared, each naturally aligned
 *   (pointer arrays to ptr_size, the others to 4), sized by the header's capacities. A stack entry
 *   is 12 bytes: hash, first, depth, pass.
 * - Live slot i is in use when live_addr[i] != 0. Slot i belongs to bucket i / live_ways. The address is stored last when a slot is filled
 *   and is the only store when it is emptied, so a dump taken at any instant never shows a slot
 *   half-written: an in-use slot's size, stack and birth belong to its address.
 * - Stack id i (1..stack_capacity-1) is defined when stacks[i].depth != 0 (depth is stored last);
 *   its frames are frames[first .. first+depth), return addresses, innermost first. Id 0 means
 *   "unknown". Stacks are never removed.
 * - Each in-use slot stands for 1 / (1 - exp(-size/interval)) allocations of its stack's site
 *   (interval 1: exactly one).
 */
#ifndef MSAMP_HEAPDUMP_H
#define MSAMP_HEAPDUMP_H

#include <stdatomic.h>
#include <stdint.h>

#include "msamp_config.h"

#define MSAMP_HEAPDUMP_MAGIC 0x4448534du /* "MSHD" in a little-endian dump */
/* 2: version 1 without the per-bucket fingerprint masks (derived data, now kept apart). */
#define MSAMP_HEAPDUMP_VERSION 2u

struct msamp_stack_entry_v2 {
    uint32_t hash;  /* hash of the frames */
    uint32_t first; /* index of the first frame in frames[] */
    uint16_t depth; /* 0: entry unused */
    uint16_t pass;  /* snapshot pass in which the definition was last sent (0: never) */
};

struct msamp_heapdump_v2 {
    _Atomic uint32_t magic;
    uint16_t version;
    uint16_t ptr_size;
    uint32_t live_capacity;
    uint32_t live_ways;
    uint32_t stack_capacity;
    uint32_t frame_capacity;
    uint32_t max_depth;
    uint32_t session_id;
    uint32_t interval;  /* current sampling interval, bytes */
    uint32_t tick_hz;   /* rate of live_birth */
    uint32_t live_used;
    uint32_t stacks_used;
    uint32_t frames_used;
    uint32_t reserved;
    _Atomic uintptr_t live_addr[MSAMP_CFG_LIVE_CAPACITY]; /* 0: slot free */
    uintptr_t live_size[MSAMP_CFG_LIVE_CAPACITY];
    uint32_t live_stack[MSAMP_CFG_LIVE_CAPACITY];
    uint32_t live_birth[MSAMP_CFG_LIVE_CAPACITY]; /* low 32 bits of the time, tick_hz */
    struct msamp_stack_entry_v2 stacks[MSAMP_CFG_STACK_CAPACITY];
    uintptr_t frames[MSAMP_CFG_FRAME_POOL];
};

#if MSAMP_CFG_HEAPDUMP
/* The block itself (src/msamp_table_dump.c). */
extern struct msamp_heapdump_v2 msamp_heapdump;
#endif

_Static_assert(sizeof(struct msamp_stack_entry_v2) == 12, "stack entry layout");
_Static_assert(__builtin_offsetof(struct msamp_heapdump_v2, live_addr) ==
                   (56 + sizeof(uintptr_t) - 1) / sizeof(uintptr_t) * sizeof(uintptr_t),
               "heapdump header layout");

#endif
