/*
 * Symbolization of addresses in an ELF file through elfutils (libdwfl/libdw): function names,
 * file:line, and inline chains from DWARF (DW_TAG_inlined_subroutine with DW_AT_call_file and
 * DW_AT_call_line), innermost first. Never touches the network (debuginfod is disabled).
 */
#ifndef DRAIN_SYMBOLIZE_H
#define DRAIN_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#define SYM_MAX_INLINE 32

struct sym_elf;

struct sym_frame {
    const char *name;        /* function name (never NULL when returned) */
    const char *system_name; /* linkage name, or name */
    const char *file;        /* source file of the function, or NULL */
    int line;                /* line in that function, 0 when unknown */
    int start_line;          /* declaration line of the function, 0 when unknown */
};

/* Opens an ELF file. NULL with a message in err when it is missing, unreadable or not an ELF. */
struct sym_elf *sym_open(const char *path, char *err, size_t errlen);
void sym_close(struct sym_elf *e);

/* A loaded library of a hosted program (a MAPPING's path and build-id), opened once a process and
 * kept until sym_library_close_all: NULL when the file is missing, not a regular file, unreadable,
 * not an ELF, another build (its build-id differs; a stream without build-id trusts the path) or
 * past SYM_MAX_LIBRARIES. Its debug information comes from the file itself or its separate debug
 * file, which elfutils finds by build-id under /usr/lib/debug/.build-id/ or by .gnu_debuglink
 * (beside it, in .debug/, under /usr/lib/debug). */
#define SYM_MAX_LIBRARIES 4096 /* libraries (paths and build-ids) sym_library looks up in a run */
struct sym_elf *sym_library(const char *path, const uint8_t *build_id, size_t build_id_len);
void sym_library_close_all(void);

const char *sym_path(const struct sym_elf *e);
/* The GNU build-id (len 0 when the file has none). */
const uint8_t *sym_build_id(const struct sym_elf *e, size_t *len);

/* ELF virtual address of a runtime address inside a mapping that maps file offset `offset` at
 * `start` (pprof/WIRE_FORMAT MAPPING semantics), through the PT_LOAD segment holding `offset`. */
uint64_t sym_runtime_to_vaddr(const struct sym_elf *e, uint64_t addr, uint64_t start,
                              uint64_t offset);

/* Frames at an ELF virtual address, innermost (inlined) first: the count (0 when the address is
 * in no known function). Strings stay valid until sym_close. */
int sym_lookup(struct sym_elf *e, uint64_t vaddr, struct sym_frame *out, int max);

#endif
