/*
 * drain's post-mortem reader: the in-use profile from a RAM dump or an ELF core instead of the
 * stream. It finds the device's `msamp_heapdump` block (include/msamp_heapdump.h) in the dumped
 * memory (through the --elf symbol, else by scanning for its magic in either byte order), checks
 * every field of it against what the dump holds (the block is untrusted), and hands drain's session
 * model the records a stream would have given for the same live table: a SESSION, the STACK
 * definitions and one LIVE per in-use slot, so the outputs (-o, --top, --folded) and symbolization
 * are the stream's. See docs/POSTMORTEM.md. Its code by stage: postmortem_read.c (the dump's
 * memory and the ELF), postmortem_find.c (the block found and checked), postmortem_emit.c (the
 * block told as records, in a line, to the heap walk); their shared state: postmortem_dump.h.
 */
#ifndef DRAIN_POSTMORTEM_H
#define DRAIN_POSTMORTEM_H

#include <stddef.h>
#include <stdint.h>

#include "msamp_decode.h"

#define PM_MAX_REGIONS 64
#define PM_MAX_FILE_BYTES (1ull << 34) /* a dump file larger than this is refused (16 GiB) */

struct pm_dump;

/* A dump with no memory yet. */
struct pm_dump *pm_new(void);
void pm_free(struct pm_dump *d);

/* Adds memory: `size` bytes at device address `base` (not copied: they must outlive d). name
 * says where they came from, in messages. -1 with a message when the region overlaps another,
 * wraps past 2^64, or there are too many. */
int pm_add_mem(struct pm_dump *d, uint64_t base, const uint8_t *p, uint64_t size, const char *name,
               char *err, size_t errlen);
/* --ram FILE@ADDR: a raw image of memory from ADDR (mapped read-only). -2 for a malformed spec
 * (a bad command line), -1 with a message for a file that cannot be read or a bad region. */
int pm_add_ram(struct pm_dump *d, const char *spec, char *err, size_t errlen);
/* --core FILE: an ELF core's PT_LOAD segments (gdb gcore, QEMU dump-guest-memory). */
int pm_add_core(struct pm_dump *d, const char *path, char *err, size_t errlen);
/* The notes of a core's PT_NOTE segment (n bytes, the core's byte order, `word`-byte words: 4
 * or 8), as pm_add_core reads them: an NT_FILE note's files mapped (a process's core) give a PIE's
 * load bias and the profile's mappings; the rest is ignored, a malformed note too. */
void pm_add_core_notes(struct pm_dump *d, const uint8_t *p, uint64_t n, int big, unsigned word);
/* --elf FILE: the firmware, for the block's address (symbol msamp_heapdump), its byte order,
 * pointer size, architecture and build-id. -1 when it is not a readable ELF. */
int pm_set_elf(struct pm_dump *d, const char *path, char *err, size_t errlen);
/* Without an ELF: the block's address, or 0 to scan (the fuzzer's way to give a symbol). */
void pm_set_block_addr(struct pm_dump *d, uint64_t addr, int have);

/* Finds and checks the block. 0, or -1 with a message (no block, a bad version, an array out of
 * the dump, a wrong ELF). Notes for the user (a scan instead of a symbol, inconsistencies that
 * were skipped) go to `notes` (may be NULL) unless quiet. */
int pm_find(struct pm_dump *d, char *err, size_t errlen);

/* The records a stream would have carried for the block found, one at a time (pointers valid
 * during the call): SESSION, MARK (where the profile came from), STACK..., LIVE.... */
void pm_emit(const struct pm_dump *d, msamp_record_fn fn, void *arg);

/* One line describing what was read: "block at 0x... (symbol), version 4, big-endian, 8-byte
 * pointers, 33 of 256 slots in use, 8 stacks". */
void pm_describe(const struct pm_dump *d, char *out, size_t n);
/* Warnings worth saying on stderr (skipped stacks, a live count that disagrees), or "" */
const char *pm_warnings(const struct pm_dump *d);

/* For the heap walk (heapwalk.c), once pm_find succeeded: n bytes at device address a wholly in
 * one region of the dump, or NULL; the block's byte order and pointer size; the --elf's load
 * bias; the live table's slot i (0 when empty: addr without its realloc bit, size, stack id);
 * the device ranges the block and its arrays take (at most 8), which a scan for pointers skips. */
const uint8_t *pm_mem(const struct pm_dump *d, uint64_t a, uint64_t n);
int pm_big(const struct pm_dump *d);
unsigned pm_ptr(const struct pm_dump *d);
uint64_t pm_bias(const struct pm_dump *d);
uint32_t pm_live_capacity(const struct pm_dump *d);
int pm_live_slot(const struct pm_dump *d, uint32_t i, uint64_t *addr, uint64_t *size,
                 uint32_t *stack);
size_t pm_block_spans(const struct pm_dump *d, uint64_t lo[8], uint64_t hi[8]);

/* Watches plain input for the block's magic, in either byte order, across chunk boundaries. */
struct pm_magic_scan {
    uint8_t tail[3];
    size_t ntail;
    int seen;
};
void pm_magic_feed(struct pm_magic_scan *m, const uint8_t *p, size_t n);

#endif
