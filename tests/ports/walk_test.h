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

static inline void fill_bounds(struct msamp_arm_bounds *b, uintptr_t lo, uintptr_t hi)
{
    extern const char __msamp_text_lo[], __msamp_text_hi[];
    extern const char __exidx_start[], __exidx_end[];
    b->stack_lo = lo;
    b->stack_hi = hi;
    b->text_lo = (uintptr_t)__msamp_text_lo;
    b->text_hi = (uintptr_t)__msamp_text_hi;
    b->exidx_lo = (uintptr_t)__exidx_start;
    b->exidx_hi = (uintptr_t)__exidx_end;
}

#if MSAMP_ARM_UNWINDER == MSAMP_ARM_UNWIND_FRAME
#define TEST_FRAME_WALKER 1
#if MSAMP_ARM_FRAME_LAYOUT == MSAMP_ARM_FRAME_AAPCS
#define REC_BELOW 0u
#define REC_ABOVE 8u
static inline void rec_write(uintptr_t fp, uintptr_t prev, uintptr_t pc)
{
    ((uint32_t *)fp)[0] = (uint32_t)prev;
    ((uint32_t *)fp)[1] = (uint32_t)pc;
}
#elif MSAMP_ARM_FRAME_LAYOUT == MSAMP_ARM_FRAME_APCS
#define REC_BELOW 12u
#define REC_ABOVE 0u
static inline void rec_write(uintptr_t fp, uintptr_t prev, uintptr_t pc)
{
    ((uint32_t *)fp)[-3] = (uint32_t)prev;
    ((uint32_t *)fp)[-1] = (uint32_t)pc;
}
#else
#define REC_BELOW 4u
#define REC_ABOVE 4u
static inline void rec_write(uintptr_t fp, uintptr_t prev, uintptr_t pc)
{
    ((uint32_t *)fp)[-1] = (uint32_t)prev;
    ((uint32_t *)fp)[0] = (uint32_t)pc;
}
#endif
static inline void walk_range(uintptr_t fp, uintptr_t lo, uintptr_t hi, msamp_frame_fn fn, void *arg)
{
    struct msamp_arm_bounds b;
    fill_bounds(&b, lo, hi);
    msamp_arm_walk_frames(fp, &b, fn, arg);
}
#else
#define TEST_FRAME_WALKER 0
static inline void walk_random(uintptr_t lo, uintptr_t hi, uintptr_t (*junk)(void),
                               uintptr_t (*text_pc)(void), msamp_frame_fn fn, void *arg)
{
    struct msamp_arm_bounds b;
    struct msamp_arm_regs r;
    fill_bounds(&b, lo, hi);
    for (unsigned i = 0; i < 16; i++)
        r.r[i] = (uint32_t)junk();
    r.r[13] = (uint32_t)((lo + (junk() % (hi - lo))) & ~(uintptr_t)3);
    r.r[15] = (uint32_t)(text_pc() | 1u);
    msamp_arm_exidx_walk(&r, r.r[13], &b, fn, arg);
}
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

#elif defined(__x86_64__) || defined(__riscv)
#if defined(__x86_64__)
#include "msamp_x86_64.h"
#define SYS_WRITE 1
#define SYS_MMAP 9
#define SYS_MPROTECT 10
#define SYS_EXIT 231
#define REC_BELOW 0u
#define REC_ABOVE 16u
#define PREV_AT 0
#define PC_AT 1
#define BOUNDS msamp_x86_64_bounds
#define WALK_FRAMES msamp_x86_64_walk_frames
#else
#include "msamp_riscv64.h"
#define SYS_WRITE 64
#define SYS_MMAP 222
#define SYS_MPROTECT 226
#define SYS_EXIT 94
#define REC_BELOW 16u
#define REC_ABOVE 0u
#define PREV_AT (-2)
#define PC_AT (-1)
#define BOUNDS msamp_riscv64_bounds
#define WALK_FRAMES msamp_riscv64_walk_frames
#endif
#define MAP_PRIVATE_ANON 0x22
#define TEST_PC_TAG 0u
#define TEST_FRAME_WALKER 1
static inline void rec_write(uintptr_t fp, uintptr_t prev, uintptr_t pc)
{
    ((uintptr_t *)fp)[PREV_AT] = prev;
    ((uintptr_t *)fp)[PC_AT] = pc;
}
static inline void walk_range(uintptr_t fp, uintptr_t lo, uintptr_t hi, msamp_frame_fn fn, void *arg)
{
    extern const char __msamp_text_lo[], __msamp_text_hi[];
    struct BOUNDS b = {lo, hi, (uintptr_t)__msamp_text_lo, (uintptr_t)__msamp_text_hi};
    WALK_FRAMES(fp, &b, fn, arg);
}

#else
#error "walk_test: no support for this architecture yet"
#endif

#endif
