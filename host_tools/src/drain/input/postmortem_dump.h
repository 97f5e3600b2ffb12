/*
 * The post-mortem reader's state (struct pm_dump), shared by its three files and by no one else
 * (the rest of drain sees postmortem.h): postmortem_read.c reads the dump's memory and the
 * firmware's ELF into it, postmortem_find.c finds and checks the msamp_heapdump block in that
 * memory, postmortem_emit.c tells what was found (as records, in a line, to the heap walk).
 */
#ifndef DRAIN_POSTMORTEM_DUMP_H
#define DRAIN_POSTMORTEM_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "input/postmortem.h"
#include "msamp_wire.h"

/* The layout's constants (include/msamp_heapdump.h), spelled out: that header is the device's. */
#define HD_MAGIC 0x4448534du
#define HD_HEADER 56u        /* magic .. flags */
#define HD_FLAG_CODED 0x1u
#define HD_MAX_LIVE (1u << 24)
#define HD_MAX_STACKS 65536u
#define HD_MAX_FRAMES (1u << 28)
#define HD_STACK_ENTRY 16u
#define MAX_MAPS 72 /* files mapped: --ram files and a core */
#define MAX_FILES 256 /* a process core's file mappings kept (its NT_FILE note) */
#define MAX_ELF_LOADS 16 /* the --elf's PT_LOAD segments kept */
#define PAGE 4096u /* load addresses are multiples of it */

/* A file mapped in the process a core is of (gdb gcore, the kernel: the NT_FILE note). */
struct core_file {
    uint64_t start, end, offset;
    char *path;
};

struct region {
    uint64_t base, size;
    const uint8_t *p;
    char name[96];
};

struct pm_dump {
    struct region r[PM_MAX_REGIONS];
    size_t nr;
    struct { void *p; size_t n; } maps[MAX_MAPS];
    size_t nmaps;
    /* From a process core's NT_FILE note. */
    struct core_file *files;
    size_t nfiles;
    /* From --elf. */
    int have_elf, elf_big, elf_class64, have_sym;
    unsigned arch;
    uint64_t sym_addr, sym_size;
    int elf_dyn; /* ET_DYN: a PIE (or a shared object), loaded at a bias found in the dump */
    struct { uint64_t vaddr, offset, filesz, memsz; } load[MAX_ELF_LOADS];
    size_t nload;
    uint64_t bias;  /* the --elf's load bias: its addresses + bias are the dump's */
    const char *bias_how; /* how it was found, or NULL (none: 0) */
    uint8_t build_id[MSAMP_WIRE_MAX_BUILD_ID];
    size_t build_id_len;
    char elf_name[96];
    uint64_t note_addr; /* the build-id note's address in the image, and its bytes */
    uint8_t *note;
    size_t note_len;
    int have_addr; /* pm_set_block_addr */
    uint64_t given_addr;
    /* The block found. */
    int found, big, scanned, candidates;
    uint64_t at;
    uint32_t version, ptr, flags, live_cap, ways, stack_cap, frame_cap, max_depth, session_id,
        interval, tick_hz, live_used, stacks_used, frames_used;
    uint64_t a_addr, a_size, a_stack, a_birth, a_interval, a_stacks, a_frames;
    uint32_t in_use, defined, skipped_stacks;
    char warn[512];
};

/* The n-byte unsigned integer at p, in byte order big. */
static inline uint64_t pm_rd(const uint8_t *p, unsigned n, int big)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8u * (big ? n - 1u - i : i));
    return v;
}

/* Stack id's entry (st: the stacks array, fr: the frame pool): 1 with its first frame and depth
 * when it is defined and consistent (frames wholly in the pool, headed by the id), 0 when
 * undefined (depth 0: free, or being moved), -1 when inconsistent. */
int pm_stack_entry(const struct pm_dump *d, const uint8_t *st, const uint8_t *fr, uint32_t id,
                   uint32_t *first, uint32_t *depth);

#endif
