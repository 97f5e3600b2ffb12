/* Per-architecture pieces of walk_test.c: Linux syscall numbers, the frame record layout of the
 * port's walker, and how to call its walk over explicit bounds. */
#ifndef WALK_TEST_H
#define WALK_TEST_H

#include <stdint.h>

#ifndef TEST_NAME
#define TEST_NAME "walk"
#endif

#if defined(__clang__)
#define TEST_NOINLINE __attribute__((noinline))
#else
#define TEST_NOINLINE __attribute__((noinline, noclone))
#endif

#if defined(__arm__)
#include "msamp_arm.h"
#define SYS_WRITE 4
#define SYS_MMAP 192 /* mmap2 */
#define SYS_MPROTECT 125
#define SYS_EXIT 248
#define MAP_PRIVATE_ANON 0x22
#define TEST_PC_TAG 1u /* the Thumb bit */

#if MSAMP_ARM_UNWINDER == MSAMP_ARM_UNWIND_FRAME
#define TEST_FRAME_WALKER 1
#else
#define TEST_FRAME_WALKER 0
#if MSAMP_CFG_UNWIND_CACHE > 0 && defined(MSAMP_ARM_TEST_HOOKS)
/* The exidx walker's unwind-entry cache (tests/ports/ports.mk builds the port with its test
 * hooks): two ways, direct-mapped each. */
#define TEST_ARM_CACHE 1
static uint32_t ref_pc[64];
static unsigned ref_n, ref_i;
static int ref_stopped; /* the callback ended the cached walk */
static unsigned long ref_diff; /* forged walks whose cached walk differed from the interpreter's */
static msamp_frame_fn ref_fn;

static int ref_compare(void *arg, uintptr_t pc)
{
    if (ref_i >= ref_n || ref_pc[ref_i] != pc)
        ref_diff++;
    ref_i++;
    int more = ref_fn(arg, pc);
    ref_stopped = !more;
    return more;
}
#else
#define TEST_ARM_CACHE 0 /* no cache in this build (the m23-gcc walker test): -Wundef */
#endif
static inline void walk_random(uintptr_t lo, uintptr_t hi, uintptr_t (*junk)(void),
                               uintptr_t (*text_pc)(void), msamp_frame_fn fn, void *arg)
{
    extern const char __msamp_text_lo[], __msamp_text_hi[];
    extern const char __exidx_start[], __exidx_end[];
    struct msamp_arm_bounds b = {{lo, hi, (uintptr_t)__msamp_text_lo, (uintptr_t)__msamp_text_hi},
                                 (uintptr_t)__exidx_start, (uintptr_t)__exidx_end};
    struct msamp_arm_regs r;
    for (unsigned i = 0; i < 16; i++)
        r.r[i] = (uint32_t)junk();
    r.r[13] = (uint32_t)((lo + (junk() % (hi - lo))) & ~(uintptr_t)3);
    r.r[15] = (uint32_t)(text_pc() | 1u);
#if TEST_ARM_CACHE
    /* The same walk by the interpreter alone (msamp_arm_exidx_step: no cache): the cached walk
     * must report the very same pcs. */
    struct msamp_arm_regs ref;
    for (unsigned i = 0; i < 16; i++) /* (a struct copy would be a memcpy call on ARMv6-M) */
        ref.r[i] = r.r[i];
    ref_n = 0;
    for (unsigned steps = 0, reporting = 0; steps < MSAMP_ARM_WALK_MAX && ref_n < 64u; steps++) {
        if (!msamp_arm_exidx_step(&ref, &b))
            break;
        if (!reporting && ref.r[13] <= r.r[13])
            continue;
        reporting = 1;
        ref_pc[ref_n++] = ref.r[15] & ~1u;
    }
    ref_i = 0;
    ref_stopped = 0;
    ref_fn = fn;
    msamp_arm_exidx_walk(&r, r.r[13], &b, ref_compare, arg);
    if (!ref_stopped && ref_i != ref_n)
        ref_diff++;
#else
    msamp_arm_exidx_walk(&r, r.r[13], &b, fn, arg);
#endif
}
#if TEST_ARM_CACHE
static inline unsigned long cache_misses(void)
{
    return msamp_arm_exidx_decodes;
}
static inline unsigned cache_row(uintptr_t pc)
{
    return msamp_arm_exidx_cache_slot((uint32_t)pc, 0);
}
#endif
#endif

#elif defined(__mips__)
#include "msamp_mips64.h"
#define SYS_WRITE 5001
#define SYS_MMAP 5009
#define SYS_MPROTECT 5010
#define SYS_EXIT 5205
#define MAP_PRIVATE_ANON 0x802
#define TEST_PC_TAG 0u
#define TEST_FRAME_WALKER 0
static inline void walk_random(uintptr_t lo, uintptr_t hi, uintptr_t (*junk)(void),
                               uintptr_t (*text_pc)(void), msamp_frame_fn fn, void *arg)
{
    extern const char __msamp_text_lo[], __msamp_text_hi[];
    struct msamp_mips64_bounds b = {lo, hi, (uintptr_t)__msamp_text_lo, (uintptr_t)__msamp_text_hi};
    struct msamp_mips64_regs r;
    r.pc = text_pc();
    r.sp = (lo + (junk() % (hi - lo))) & ~(uintptr_t)7;
    r.fp = junk();
    msamp_mips64_walk(&r, r.sp, &b, fn, arg);
}
#if MSAMP_MIPS64_CACHE_BITS > 0 && defined(MSAMP_MIPS64_TEST_HOOKS)
/* The scanner's cache of descriptions (tests/ports/ports.mk builds the port with its test hooks). */
#define TEST_CACHE 1
static inline unsigned long cache_misses(void)
{
    return msamp_mips64_describes;
}
static inline unsigned cache_row(uintptr_t pc)
{
    return msamp_mips64_cache_row(pc);
}
#endif

#elif defined(__x86_64__)
#define SYS_WRITE 1
#define SYS_MMAP 9
#define SYS_MPROTECT 10
#define SYS_EXIT 231
#define MAP_PRIVATE_ANON 0x22
#define TEST_PC_TAG 0u
#define TEST_FRAME_WALKER 1

#elif defined(__riscv)
#define SYS_WRITE 64
#define SYS_MMAP 222
#define SYS_MPROTECT 226
#define SYS_EXIT 94
#define MAP_PRIVATE_ANON 0x22
#define TEST_PC_TAG 0u
#define TEST_FRAME_WALKER 1

#else
#error "walk_test: no support for this architecture yet"
#endif

#ifndef TEST_CACHE
#define TEST_CACHE 0
#endif
#ifndef TEST_ARM_CACHE
#define TEST_ARM_CACHE 0
#endif

#if TEST_FRAME_WALKER
/* The frame walker, port/common/msamp_frame_walk.c, with the port's record layout. */
#include "msamp_frame_walk.h"
#define REC_BELOW MSAMP_FRAME_BELOW
#define REC_ABOVE MSAMP_FRAME_ABOVE
static inline void rec_write(uintptr_t fp, uintptr_t prev, uintptr_t pc)
{
    ((uintptr_t *)fp)[MSAMP_FRAME_PREV] = prev;
    ((uintptr_t *)fp)[MSAMP_FRAME_RA] = pc;
}
static inline void walk_range(uintptr_t fp, uintptr_t lo, uintptr_t hi, msamp_frame_fn fn, void *arg)
{
    extern const char __msamp_text_lo[], __msamp_text_hi[];
    struct msamp_bounds b = {lo, hi, (uintptr_t)__msamp_text_lo, (uintptr_t)__msamp_text_hi};
    msamp_frame_walk(fp, &b, fn, arg);
}
#endif

#endif
