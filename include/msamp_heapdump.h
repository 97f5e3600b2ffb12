/*
 * The in-RAM tables of msamp (MSAMP_CFG_HEAPDUMP, on by default in every profile), version 4: a
 * layout a host can read from a RAM dump or crash dump (symbol `msamp_heapdump`; with the full
 * tables in section .noinit.msamp, kept across a warm reset, their static arrays too with
 * MSAMP_CFG_RESET_PROFILE; the compact tables' in .bss.msamp) to rebuild the in-use profile without the device's help, as Fuchsia's heapdump does
 * (`drain --ram FILE@ADDR` or `drain --core FILE`: docs/POSTMORTEM.md).
 *
 * Reading rules:
 * - The block is valid only when `magic` == MSAMP_HEAPDUMP_MAGIC; it is written last at init. In
 *   .noinit.msamp a dump taken before msamp_init() may show the previous boot's block (its arrays
 *   are this boot's, zeroed, unless they are kept too).
 * - All fields are in the device's byte order (the magic reads 0x4D534844 in a big-endian dump's
 *   byte order as little-endian: a reader tells the order from it); uintptr_t and pointers are
 *   `ptr_size` bytes (4 or 8). The header (magic to flags) is 56 bytes; seven pointers follow it (naturally aligned), to the
 *   arrays, which may be anywhere in RAM (static arrays on a device, memory mapped at init in a
 *   hosted program): live_addr, live_size, live_stack, live_birth, live_interval (live_capacity
 *   entries each), stacks (stack_capacity entries of 16 bytes: hash, first, depth, pass, refs) and
 *   frames (frame_capacity pointer-sized words).
 * - Live slot i is in use when live_addr[i] != 0. Slot i belongs to bucket i % (live_capacity /
 *   live_ways) (way-major: a bucket's slots are live_capacity / live_ways apart). The
 *   address is stored last when a slot is filled and is the only store when it is emptied, so a
 *   dump taken at any instant never shows a slot half-written: an in-use slot's size, stack, birth
 *   and interval belong to its address.
 * - Stack id i (1..stack_capacity-1) is defined when stacks[i].depth != 0 (depth is stored last,
 *   and cleared first when the stack is evicted or its frames move); its frames are frames[first ..
 *   first+depth), return addresses, innermost first. Id 0 means "unknown"; a slot's stack may
 *   also be MSAMP_WIRE_STACK_FULL (the table was full). refs counts the live slots that use it.
 *   frames[first - 1] is the stack's own header word (its id), not a frame.
 * - Each in-use slot stands for 1 / (1 - exp(-size/live_interval[i])) allocations of its stack's
 *   site (interval 1: exactly one). `interval` is the interval in force at the dump.
 * - flags (version 4; the word was `reserved`, 0, in version 3): MSAMP_HEAPDUMP_FLAG_CODED, the
 *   compact tables (MSAMP_CFG_COMPACT_TABLES: the tiny profile): live_size and live_interval point
 *   to arrays of one byte per slot, 8-bit codes that msamp_thin_decode (include/msamp_thin.h)
 *   turns into the size and interval, rounded down (at most 1/8 low); live_stack, live_birth,
 *   stacks and frames are 0 (these tables keep no frames: every in-use slot is of an unknown
 *   stack), stack_capacity the number of stack ids, frame_capacity and frames_used 0. Only the
 *   header is added to those tables' RAM.
 * - A pointer of 0 means the array is absent; a reader checks every other pointer, capacity and
 *   index against what it has of the device's memory (the block is untrusted).
 */
#ifndef MSAMP_HEAPDUMP_H
#define MSAMP_HEAPDUMP_H

#include <stdatomic.h>
#include <stdint.h>

#include "msamp_config.h"

#define MSAMP_HEAPDUMP_MAGIC 0x4448534du /* "MSHD" in a little-endian dump */
/* 4: the `reserved` word is `flags` (MSAMP_HEAPDUMP_FLAG_CODED: the compact tables' block).
 * 3: arrays behind pointers (capacities may be chosen at init), a per-slot interval (the adaptive
 * interval), stack reference counts (eviction). 2: version 1 without the fingerprint masks. */
#define MSAMP_HEAPDUMP_VERSION 4u
#define MSAMP_HEAPDUMP_FLAG_CODED 0x1u /* sizes and intervals are 8-bit codes, no stacks */

struct msamp_stack_entry_v3 {
    uint32_t hash;  /* hash of the frames */
    uint32_t first; /* index of the first frame in frames[] */
    uint16_t depth; /* 0: entry unused */
    uint16_t pass;  /* snapshot pass in which the definition was last sent (0: never) */
    uint32_t refs;  /* live slots using this stack */
};

struct msamp_heapdump_v3 {
    _Atomic uint32_t magic;
    uint16_t version;
    uint16_t ptr_size;
    uint32_t live_capacity;
    uint32_t live_ways;
    uint32_t stack_capacity;
    uint32_t frame_capacity;
    uint32_t max_depth;
    uint32_t session_id;
    uint32_t interval;  /* sampling interval in force, bytes */
    uint32_t tick_hz;   /* rate of live_birth */
    uint32_t live_used;
    uint32_t stacks_used;
    uint32_t frames_used; /* words of frames[] in use, headers and evicted stacks' holes included */
    uint32_t flags; /* MSAMP_HEAPDUMP_FLAG_* (version 3: reserved, 0) */
    _Atomic uintptr_t *live_addr; /* 0: slot free */
    uintptr_t *live_size;
    uint32_t *live_stack;
    uint32_t *live_birth; /* low 32 bits of the time, tick_hz */
    uint32_t *live_interval; /* the interval the entry stands for */
    struct msamp_stack_entry_v3 *stacks;
    uintptr_t *frames;
};

#if MSAMP_CFG_HEAPDUMP
/* The block itself (src/msamp_table_dump.c). */
extern struct msamp_heapdump_v3 msamp_heapdump;
#endif

_Static_assert(sizeof(struct msamp_stack_entry_v3) == 16, "stack entry layout");
_Static_assert(__builtin_offsetof(struct msamp_heapdump_v3, live_addr) ==
                   (56 + sizeof(void *) - 1) / sizeof(void *) * sizeof(void *),
               "heapdump header layout");

#endif
