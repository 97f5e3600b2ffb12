/* A compact unwinder for the ARM EHABI index (.ARM.exidx / .ARM.extab, compact model, personality
 * routines 0-2): what gcc in Thumb state leaves instead of a frame chain. It interprets the unwind
 * opcodes of one function per step over a virtual register set, checking every load like the
 * frame walker does; anything else (generic personality, refuse-to-unwind, spare opcodes) stops. */
#include <stdint.h>

#include "msamp_arm.h"

#define EXIDX_CANTUNWIND 1u
/* Opcode words after the first that personality routines 1 and 2 may have: 4 + 4 * 7 bytes is
 * more than any frame gcc describes. */
#define EXTAB_MAX_MORE 7u

/* The stream of unwind opcode bytes of one function: most significant byte first in each word. */
struct ops {
    uint32_t w[1 + EXTAB_MAX_MORE];
    unsigned pos, end;
};

static uint32_t prel31(uintptr_t where, uint32_t word)
{
    uint32_t off = word & 0x7fffffffu;
    if ((off & 0x40000000u) != 0)
        off |= 0x80000000u;
    return (uint32_t)where + off;
}

static int bad_pc(uint32_t pc, const struct msamp_arm_bounds *b)
{
    if (pc == 0 || pc >= 0xf0000000u)
        return 1;
    return b->mem.text_hi != 0 && (pc < b->mem.text_lo || pc >= b->mem.text_hi);
}

static int next_op(struct ops *o, unsigned *op)
{
    if (o->pos >= o->end)
        return 0;
    *op = (o->w[o->pos >> 2] >> (24u - 8u * (o->pos & 3u))) & 0xffu;
    o->pos++;
    return 1;
}

/* The index entry covering pc: the last one whose function starts at or below it. */
static const uint32_t *find_entry(uint32_t pc, const struct msamp_arm_bounds *b)
{
    if ((b->exidx_lo & 3u) != 0 || b->exidx_hi < b->exidx_lo)
        return 0;
    const uint32_t *tab = (const uint32_t *)b->exidx_lo;
    uint32_t lo = 0, hi = (uint32_t)((b->exidx_hi - b->exidx_lo) / 8u);
    const uint32_t *found = 0;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        const uint32_t *e = tab + 2u * mid;
        if (prel31((uintptr_t)e, e[0]) <= pc) {
            found = e;
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return found;
}

/* Bytes of the .ARM.extab entry whose header is h that load_ops() reads: the opcode words of
 * personality routines 1 and 2, the header alone otherwise. */
static uintptr_t extab_bytes(uint32_t h)
{
    unsigned pers = (h >> 24) & 0x0fu, more = (h >> 16) & 0xffu;
    if ((h & 0x80000000u) == 0 || pers == 0 || pers > 2 || more > EXTAB_MAX_MORE)
        return 4u;
    return 4u * (1u + more);
}

/* .ARM.extab after .ARM.exidx (a linker script's order; the usual one puts it before, inside
 * [text_lo, exidx_hi), the span the walker reads without further ado). The words after the index
 * that a walk may read are found once, at the first entry that points there, by a pass over the
 * index that checks it is one: entries sorted by function, prel31 words with bit 31 clear, each
 * second word EXIDX_CANTUNWIND, an inline entry or a 4-aligned offset outside the index. The span
 * ends with the furthest entry such an offset names after the index (its header read, vouched for
 * by the whole index): a walk reads nothing past it. exidx_hi (an empty span) when the index fails
 * a check or names nothing after itself. Kept per index (the port walks one; the tests others); a
 * context that interrupts the pass makes its own, with the same result. */
static volatile uintptr_t after_lo, after_hi, after_end;

static uintptr_t extab_after_end(const struct msamp_arm_bounds *b)
{
    if (after_lo == b->exidx_lo && after_hi == b->exidx_hi && after_end != 0)
        return after_end;
    const uint32_t *e = (const uint32_t *)b->exidx_lo;
    const uint32_t *stop = e + 2u * ((b->exidx_hi - b->exidx_lo) / 8u);
    uint32_t prev = 0;
    uintptr_t last = 0, end = b->exidx_hi;
    for (; e < stop; e += 2) {
        uint32_t fn = prel31((uintptr_t)e, e[0]);
        if ((e[0] & 0x80000000u) != 0 || fn < prev)
            break;
        prev = fn;
        uint32_t w = e[1];
        if (w == EXIDX_CANTUNWIND || (w & 0xff000000u) == 0x80000000u)
            continue;
        uintptr_t at = prel31((uintptr_t)&e[1], w);
        if ((w & 0x80000000u) != 0 || (at & 3u) != 0 || (at >= b->exidx_lo && at < b->exidx_hi))
            break;
        if (at >= b->exidx_hi && at > last)
            last = at;
    }
    if (e == stop && last != 0)
        end = last + extab_bytes(*(const uint32_t *)last);
    after_end = end;
    after_lo = b->exidx_lo;
    after_hi = b->exidx_hi;
    return end;
}

/* Loads the opcode stream of the entry; 0 when it has none msamp can run. */
static int load_ops(const uint32_t *e, const struct msamp_arm_bounds *b, struct ops *o)
{
    uint32_t w = e[1];

    if (w == EXIDX_CANTUNWIND)
        return 0;
    if ((w & 0x80000000u) != 0) {
        /* Inline: personality 0 with three opcode bytes. */
        if ((w & 0x7f000000u) != 0)
            return 0;
        o->w[0] = w;
        o->pos = 1;
        o->end = 4;
        return 1;
    }
    uintptr_t at = prel31((uintptr_t)&e[1], w);
    /* Where the entry's words may lie: before the index's end, or in the span after it. */
    uintptr_t end = at < b->exidx_hi ? b->exidx_hi : extab_after_end(b);
    if ((at & 3u) != 0 || at < b->mem.text_lo || at >= end || end - at < 4u)
        return 0;
    uint32_t h = *(const uint32_t *)at;
    if ((h & 0x80000000u) == 0)
        return 0; /* a generic personality routine (C++): its data is not ours to interpret */
    unsigned pers = (h >> 24) & 0x0fu;
    o->w[0] = h;
    if (pers == 0) {
        o->pos = 1;
        o->end = 4;
        return 1;
    }
    if (pers > 2)
        return 0;
    unsigned more = (h >> 16) & 0xffu;
    if (more > EXTAB_MAX_MORE || (end - at) / 4u < 1u + more)
        return 0;
    for (unsigned i = 1; i <= more; i++)
        o->w[i] = ((const uint32_t *)at)[i];
    o->pos = 2;
    o->end = 4u + 4u * more;
    return 1;
}

/* Pops the registers of mask (bit n = rn) from *vsp in ascending order, checking each load: sp
 * starts aligned and inside the stack and only grows, so each load needs only the top checked. */
static int pop(struct msamp_arm_regs *s, uint32_t *vsp, uint32_t mask, int *pc_set,
               const struct msamp_arm_bounds *b)
{
    uint32_t sp = *vsp, new_sp = 0;
    int sp_set = 0;

    if ((sp & 3u) != 0 || sp < b->mem.stack_lo || b->mem.stack_hi < 4u)
        return 0;
    const uintptr_t last = b->mem.stack_hi - 4u;
    for (mask &= 0xffffu; mask != 0; mask &= mask - 1u) {
        unsigned n = (unsigned)__builtin_ctz(mask);
        if (sp > last)
            return 0;
        uint32_t v = *(const uint32_t *)(uintptr_t)sp;
        sp += 4u;
        if (n == 13) {
            new_sp = v;
            sp_set = 1;
        } else {
            s->r[n] = v;
        }
        if (n == 15)
            *pc_set = 1;
    }
    *vsp = sp_set ? new_sp : sp;
    return 1;
}

/* Runs the opcodes; leaves the caller's sp in *vsp. */
static int run(struct ops *o, struct msamp_arm_regs *s, uint32_t *vsp, int *pc_set,
               const struct msamp_arm_bounds *b)
{
    unsigned op, op2;

    while (next_op(o, &op)) {
        if ((op & 0xc0u) == 0x00u) {
            *vsp += ((op & 0x3fu) << 2) + 4u;
        } else if ((op & 0xc0u) == 0x40u) {
            *vsp -= ((op & 0x3fu) << 2) + 4u;
        } else if ((op & 0xf0u) == 0x80u) {
            if (!next_op(o, &op2))
                return 0;
            uint32_t mask = ((op & 0x0fu) << 8 | op2) << 4;
            if (mask == 0 || !pop(s, vsp, mask, pc_set, b))
                return 0; /* 0x8000: refuse to unwind */
        } else if ((op & 0xf0u) == 0x90u) {
            if ((op & 0x0fu) == 13u || (op & 0x0fu) == 15u)
                return 0;
            *vsp = s->r[op & 0x0fu];
        } else if ((op & 0xf0u) == 0xa0u) {
            uint32_t mask = ((1u << ((op & 7u) + 1u)) - 1u) << 4;
            if ((op & 8u) != 0)
                mask |= 1u << 14;
            if (!pop(s, vsp, mask, pc_set, b))
                return 0;
        } else if (op == 0xb0u) {
            return 1;
        } else if (op == 0xb1u) {
            if (!next_op(o, &op2) || op2 == 0 || (op2 & 0xf0u) != 0 || !pop(s, vsp, op2, pc_set, b))
                return 0;
        } else if (op == 0xb2u) {
            uint32_t v = 0;
            unsigned shift = 0;
            do {
                if (shift > 21u || !next_op(o, &op2))
                    return 0;
                v |= (uint32_t)(op2 & 0x7fu) << shift;
                shift += 7u;
            } while ((op2 & 0x80u) != 0);
            *vsp += 0x204u + (v << 2);
        } else if (op == 0xb3u || op == 0xc8u || op == 0xc9u) {
            /* VFP registers saved by FSTMFDX (one extra word) or VPUSH: skipped, not restored. */
            if (!next_op(o, &op2))
                return 0;
            *vsp += ((op2 & 0x0fu) + 1u) * 8u + (op == 0xb3u ? 4u : 0u);
        } else if ((op & 0xf8u) == 0xb8u || (op & 0xf8u) == 0xd0u) {
            *vsp += ((op & 7u) + 1u) * 8u + ((op & 0xf8u) == 0xb8u ? 4u : 0u);
        } else {
            return 0; /* spare, or iWMMXt which no Cortex core has */
        }
    }
    return 1;
}

int msamp_arm_exidx_step(struct msamp_arm_regs *regs, const struct msamp_arm_bounds *b)
{
    uint32_t pc = regs->r[15] & ~1u;
    uint32_t sp = regs->r[13];
    struct ops o;

    if (bad_pc(pc, b) || pc < 2u)
        return 0;
    /* A return address follows its call: look up the call, in case it ended the function. */
    const uint32_t *e = find_entry(pc - 2u, b);
    if (e == 0 || !load_ops(e, b, &o))
        return 0;

    /* In place: a failed step ends the walk, so the registers need no copy to fall back on (a
     * 64-byte struct copy is a memcpy call on ARMv6-M, and 64 bytes of stack). */
    uint32_t vsp = sp;
    int pc_set = 0;
    if (!run(&o, regs, &vsp, &pc_set, b))
        return 0;
    if (!pc_set)
        regs->r[15] = regs->r[14];
    if (vsp <= sp || vsp > b->mem.stack_hi || bad_pc(regs->r[15], b))
        return 0;
    regs->r[13] = vsp;
    return 1;
}

unsigned msamp_arm_exidx_walk(struct msamp_arm_regs *regs, uintptr_t frame,
                              const struct msamp_arm_bounds *b, msamp_frame_fn fn, void *arg)
{
    unsigned n = 0;
    int reporting = 0;

    /* The wrapper's frame lies in the stack, above the walker's own; outside the stack's bounds,
     * the allocation ran on a stack they leave out. */
    if (frame < b->mem.stack_lo || frame >= b->mem.stack_hi) {
        fn(arg, MSAMP_WALK_OUT_OF_BOUNDS);
        return 0;
    }
    if ((frame & 3u) != 0 || frame < regs->r[13])
        return 0;
    for (unsigned steps = 0; steps < MSAMP_ARM_WALK_MAX; steps++) {
        if (!msamp_arm_exidx_step(regs, b))
            break;
        /* Now in the caller, whose sp is the CFA of the function just left. Functions whose frame
         * lies wholly below `frame` (the walker's own, the core's) are not reported; the wrapper
         * is the first whose frame holds it. */
        if (!reporting && regs->r[13] <= frame)
            continue;
        reporting = 1;
        n++;
        if (fn(arg, regs->r[15] & ~1u) == 0)
            break;
    }
    return n;
}
