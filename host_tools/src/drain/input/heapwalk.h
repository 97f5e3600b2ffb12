/*
 * drain's heap walk of a post-mortem dump (docs/POSTMORTEM.md "The heap map"): the allocator's
 * blocks and free list read from the dumped memory at the addresses the --elf's symbols give
 * (FreeRTOS heap_4: xStart, pxEnd, ucHeap; heap_5: xStart, pxEnd; newlib-nano's malloc:
 * __malloc_free_list, __malloc_sbrk_start; full newlib's: __malloc_av_, __malloc_sbrk_base), the
 * health numbers computed
 * from them, each sampled live block of the msamp_heapdump block placed in its heap block, and a
 * conservative reachability scan: from the firmware's writable sections (.data, .bss, the main
 * stack's section) through every heap block reached, an aligned word whose value lies inside an
 * allocated block (interior pointers count) marks it. A sampled block no chain reaches is
 * unreachable. The dump is untrusted: every read is bounded and checked, the free list must run
 * in address order (so it cannot cycle), a walk stops with a message at the first inconsistency.
 */
#ifndef DRAIN_HEAPWALK_H
#define DRAIN_HEAPWALK_H

#include <stddef.h>
#include <stdint.h>

#include "input/postmortem.h"

enum hw_state {
    HW_REACHABLE,   /* a chain of pointers from a root reaches it */
    HW_UNREACHABLE, /* none: leaked (but for the limits in docs/POSTMORTEM.md) */
    HW_IN_FREE,     /* its address is in a free block: freed while the table was being updated */
    HW_OUTSIDE,     /* not a block of the heap walked (a static pool, another allocator) */
    HW_NOT_SCANNED, /* the walk stopped before the scan */
};

struct hw_block {
    uint64_t addr, size; /* the header's address, the whole block's bytes (header included) */
    uint64_t held_at;    /* the address of the first word found pointing into it (0: none) */
    uint8_t free, marked;
};

struct hw_live {
    uint32_t slot, stack;
    uint64_t addr, size;
    size_t block; /* index in blocks, or SIZE_MAX */
    enum hw_state state;
};

struct hw_root {
    uint64_t lo, hi;
    char name[40];
    int dumped; /* wholly in the dump */
};

#define HW_MAX_ROOTS 32
struct hw_heap {
    const char *allocator; /* "FreeRTOS heap_4", "FreeRTOS heap_5", "newlib-nano malloc",
                            * "newlib malloc" */
    uint64_t lo, hi, end; /* the heap's first block, its end marker (pxEnd) and past it */
    unsigned ptr, hdr;
    int big;
    struct hw_block *b; /* every block in address order (allocated and free) */
    size_t nb;
    struct { uint64_t addr, size; } *fl; /* the free list in its own order */
    size_t nfl;
    uint64_t free_bytes, largest, largest_at, used_bytes, used_blocks;
    int walked_all;   /* the walk by sizes covered the heap (heap_4, newlib-nano, newlib) */
    int scan_partial; /* heap_5: the blocks walked are scanned, though not all were */
    struct hw_live *live;
    size_t nlive;
    size_t count[5]; /* sampled blocks by state */
    struct hw_root root[HW_MAX_ROOTS];
    size_t nroot;
    uint64_t scanned_static, scanned_heap; /* bytes scanned */
    struct hw_sym { uint64_t addr, size; char *name; } *sym; /* objects, to name a holder */
    size_t nsym;
    char note[512]; /* what stopped or limited the walk, or "" */
};

/* The allocator's symbols (their device addresses). */
struct hw_syms {
    int have_start, have_end, have_heap, have_canary, have_nano_list, have_nano_start;
    uint64_t start, end, heap, heap_size, canary, nano_list, nano_start;
    /* full newlib: __malloc_av_, __malloc_sbrk_base, __malloc_current_mallinfo */
    int have_nl_av, have_nl_base, have_nl_info;
    uint64_t nl_av, nl_base, nl_info;
};

/* Walks the heap of a dump that pm_find read (elf: the firmware's ELF, for its symbols and
 * sections). NULL with the reason in err when the ELF names no known allocator or the walk fails
 * before any free list could be read; otherwise the heap (possibly partial: note says why). */
struct hw_heap *hw_walk(const struct pm_dump *d, const char *elf, char *err, size_t errlen);
/* The same at the symbols given, the roots [lo[i], hi[i]) (the fuzzer's way in). */
struct hw_heap *hw_walk_at(const struct pm_dump *d, const struct hw_syms *e, const uint64_t *lo,
                           const uint64_t *hi, size_t nroots, char *err, size_t errlen);
void hw_free(struct hw_heap *h);
/* One line: "FreeRTOS heap_4 0x20000be8-0x20040be8: free 169896 B in 43 blocks, largest 164240 B
 * at 0x...; 36 sampled live blocks: 30 reachable, 6 unreachable". */
void hw_describe(const struct hw_heap *h, char *out, size_t n);
/* The name of the object or block holding a word at address a: "held_static+0",
 * "heap block 0x20001230+8", or "0x..." */
void hw_holder(const struct hw_heap *h, uint64_t a, char *out, size_t n);
const char *hw_state_name(enum hw_state s);

/* The heap of the dump being read (set by driver/drain.c's run_dump for the views), or NULL. */
extern struct hw_heap *hw_current;
extern char hw_current_why[512]; /* why there is none */

#endif
