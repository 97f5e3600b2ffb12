/*
 * The MIPS64 (n64) bare-metal port of msamp, little and big endian: what a board supplies to it.
 *
 *   contexts   one sampler state for normal execution and one while an exception is being taken
 *              (Status.EXL or ERL set).
 *   walker     a prologue scanner (MIPS code keeps no frame chain): see port/mips64/README.md.
 *              It reads code in [__msamp_text_lo, __msamp_text_hi) and stack in
 *              [__msamp_stack_lo, __msamp_stack_hi), every load checked, and stops at anything it
 *              cannot prove.
 *   lock       Status.IE cleared with di/ei (MIPS64 release 2), restored from the token.
 *   time       CP0 Count, which runs at MSAMP_MIPS64_COUNT_HZ (half the pipeline clock).
 *   build-id   the GNU build-id note between __msamp_build_id_start and __msamp_build_id_end.
 * Build with -fno-omit-frame-pointer (the scanner then finds `move s8,sp` in dynamic frames).
 */
#ifndef MSAMP_MIPS64_H
#define MSAMP_MIPS64_H

#include <stdint.h>

#include "msamp_port.h"

/* Hard cap on frames unwound by one walk, whatever the callback says. */
#ifndef MSAMP_MIPS64_WALK_MAX
#define MSAMP_MIPS64_WALK_MAX 256
#endif

/* Instructions read back from a return address looking for the frame allocation: a call further
 * than this from its function's prologue ends the walk. */
#ifndef MSAMP_MIPS64_SCAN_MAX
#define MSAMP_MIPS64_SCAN_MAX 1024
#endif

/* Return addresses whose unwind description is kept: 2^MSAMP_MIPS64_CACHE_BITS entries of 24
 * bytes in four ways (0: no cache, else 3 to 16; 6 = 1.5 KiB). A hit skips reading the function's
 * code. */
#ifndef MSAMP_MIPS64_CACHE_BITS
#define MSAMP_MIPS64_CACHE_BITS 6
#endif

/* CP0 Count rate in Hz (QEMU's Malta: 100 MHz). */
#ifndef MSAMP_MIPS64_COUNT_HZ
#define MSAMP_MIPS64_COUNT_HZ 100000000u
#endif

struct msamp_mips64_bounds {
    uintptr_t stack_lo, stack_hi; /* stack loads lie in [stack_lo, stack_hi) */
    uintptr_t text_lo, text_hi;   /* code reads and return addresses lie in [text_lo, text_hi) */
};

/* The registers an unwind step needs: pc (a return address: the call is at pc - 8), sp, and s8. */
struct msamp_mips64_regs {
    uintptr_t pc, sp, fp;
};

/* One step from the function holding pc to its caller: returns 1 with regs updated (sp strictly
 * higher), or 0 when the step cannot be proved. */
int msamp_mips64_step(struct msamp_mips64_regs *regs, const struct msamp_mips64_bounds *b);

/* Unwinds from regs; the first function whose frame [sp, CFA) holds `frame` (the wrapper's frame
 * address) is the wrapper: reports the pc of each caller from there on, until fn returns 0 or a
 * step fails. Returns the count. */
unsigned msamp_mips64_walk(struct msamp_mips64_regs *regs, uintptr_t frame,
                           const struct msamp_mips64_bounds *b, msamp_frame_fn fn, void *arg);

#ifdef MSAMP_MIPS64_TEST_HOOKS
/* For tests/ports/walk_test.c: the descriptions read from code so far (the cache's misses), and
 * the entry a return address takes in the cache's first way. */
extern unsigned long msamp_mips64_describes;
unsigned msamp_mips64_cache_row(uintptr_t pc);
#endif

/* Fills its caller's state: pc = the return address into the caller, sp, s8. */
void msamp_mips64_capture(struct msamp_mips64_regs *regs);

#endif
