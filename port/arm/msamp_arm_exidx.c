/* A compact unwinder for the ARM EHABI index (.ARM.exidx / .ARM.extab, compact model, personality
 * routines 0-2): what gcc in Thumb state leaves instead of a frame chain. It interprets the unwind
 * opcodes of one function per step over a virtual register set, checking every load like the
 * frame walker does; anything else (generic personality, refuse-to-unwind, spare opcodes) stops. */
#include <stdint.h>

#include "msamp_arm.h"

#define EXIDX_CANTUNWIND 1u
/* The unwind-entry cache, where this walker is the port's (clang and ARM state walk frames). */
#define UNWIND_CACHE (MSAMP_CFG_UNWIND_CACHE > 0 && MSAMP_ARM_UNWINDER == MSAMP_ARM_UNWIND_EXIDX)
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

static inline __attribute__((always_inline)) int bad_pc(uint32_t pc, const struct msamp_arm_bounds *b)
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

/* The end of a step: pc from the popped lr unless pc itself was popped; the caller's sp (vsp)
 * strictly above the callee's and inside the stack, its pc inside the code. */
static int finish(struct msamp_arm_regs *regs, uint32_t sp, uint32_t vsp, int pc_set,
                  const struct msamp_arm_bounds *b)
{
    if (!pc_set)
        regs->r[15] = regs->r[14];
    if (vsp <= sp || vsp > b->mem.stack_hi || bad_pc(regs->r[15], b))
        return 0;
    regs->r[13] = vsp;
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
    return finish(regs, sp, vsp, pc_set, b);
}

#if UNWIND_CACHE
_Static_assert(MSAMP_CFG_UNWIND_CACHE >= 4 && MSAMP_CFG_UNWIND_CACHE <= 1024 &&
                   (MSAMP_CFG_UNWIND_CACHE & (MSAMP_CFG_UNWIND_CACHE - 1)) == 0,
               "MSAMP_CFG_UNWIND_CACHE: 0 (no cache), or a power of two from 4 to 1024");
/* The unwind-entry cache: a direct-mapped table of decoded rules by return address.
 *
 * A rule is what the opcodes of the entry do, when they do the common thing: vsp = sp, r7 or r11
 * (an opcode 0x9n before any pop); vsp += 4 * L; pop the registers of a mask in one run of words
 * (pops of several opcodes, each next one at the word after the last and of higher registers
 * only); vsp += 4 * P. Word: bits 0-15 the mask (r13 never: bit 13 marks the special rules), 16-25
 * L, 26-29 P, 30-31 the base (0 sp, 1 r7, 2 r11). Applying one makes the same loads, with the same
 * checks, as the interpreter makes running the opcodes: every load 4-aligned in the stack
 * (the run's first at or above stack_lo, each at or below its top word), then finish(). */
#define RULE_NO_STEP 0x2000u  /* no step: no entry, EXIDX_CANTUNWIND, refuse, spare opcodes... */
#define RULE_INTERPRET 0x3000u /* opcodes a rule cannot say (vsp from a popped register, pops out
                                  of order, r13 popped, offsets out of range): run them each time */
#define RULE_SPECIAL 0x2000u

/* The rule of an entry's opcodes (RULE_NO_STEP where run() would fail whatever the stack holds). */
static uint32_t decode(struct ops *o)
{
    unsigned op, op2, base = 13;
    uint32_t off = 0, mask = 0, load = 0, end = 0;

    while (next_op(o, &op)) {
        uint32_t m = 0;
        if ((op & 0xc0u) == 0x00u) {
            off += ((op & 0x3fu) << 2) + 4u;
        } else if ((op & 0xc0u) == 0x40u) {
            off -= ((op & 0x3fu) << 2) + 4u;
        } else if ((op & 0xf0u) == 0x80u) {
            if (!next_op(o, &op2))
                return RULE_NO_STEP;
            m = ((op & 0x0fu) << 8 | op2) << 4;
            if (m == 0)
                return RULE_NO_STEP; /* 0x8000: refuse to unwind */
        } else if ((op & 0xf0u) == 0x90u) {
            if ((op & 0x0fu) == 13u || (op & 0x0fu) == 15u)
                return RULE_NO_STEP;
            if (mask != 0)
                return RULE_INTERPRET; /* vsp from a register this step may have popped */
            base = op & 0x0fu;
            off = 0;
        } else if ((op & 0xf0u) == 0xa0u) {
            m = ((1u << ((op & 7u) + 1u)) - 1u) << 4;
            if ((op & 8u) != 0)
                m |= 1u << 14;
        } else if (op == 0xb0u) {
            break;
        } else if (op == 0xb1u) {
            if (!next_op(o, &op2) || op2 == 0 || (op2 & 0xf0u) != 0)
                return RULE_NO_STEP;
            m = op2;
        } else if (op == 0xb2u) {
            uint32_t v = 0;
            unsigned shift = 0;
            do {
                if (shift > 21u || !next_op(o, &op2))
                    return RULE_NO_STEP;
                v |= (uint32_t)(op2 & 0x7fu) << shift;
                shift += 7u;
            } while ((op2 & 0x80u) != 0);
            off += 0x204u + (v << 2);
        } else if (op == 0xb3u || op == 0xc8u || op == 0xc9u) {
            if (!next_op(o, &op2))
                return RULE_NO_STEP;
            off += ((op2 & 0x0fu) + 1u) * 8u + (op == 0xb3u ? 4u : 0u);
        } else if ((op & 0xf8u) == 0xb8u || (op & 0xf8u) == 0xd0u) {
            off += ((op & 7u) + 1u) * 8u + ((op & 0xf8u) == 0xb8u ? 4u : 0u);
        } else {
            return RULE_NO_STEP;
        }
        if (m != 0) {
            if ((m & (1u << 13)) != 0)
                return RULE_INTERPRET;
            if (mask == 0)
                load = off;
            else if (off != end || (m & (0u - m)) <= mask)
                return RULE_INTERPRET; /* not one run of ascending registers */
            mask |= m;
            for (; m != 0; m &= m - 1u)
                off += 4u;
            end = off;
        }
    }
    if (mask == 0)
        load = end = off;
    uint32_t post = off - end, code = base == 13 ? 0u : base == 7 ? 1u : base == 11 ? 2u : 3u;
    if (code == 3u || load > 4u * 1023u || post > 4u * 15u)
        return RULE_INTERPRET; /* (offsets below the base read as large: interpreted too) */
    return mask | load << 14 | post << 24 | code << 30;
}

/* One step by a rule (not a special one). */
static int apply(uint32_t rule, struct msamp_arm_regs *regs, const struct msamp_arm_bounds *b)
{
    uint32_t sp = regs->r[13], mask = rule & 0xffffu;
    uint32_t vsp = (rule >> 30) == 0u ? sp : regs->r[(rule >> 30) == 1u ? 7 : 11];
    vsp += (rule >> 14) & 0xffcu;
    if (mask != 0) {
        if ((vsp & 3u) != 0 || vsp < b->mem.stack_lo || b->mem.stack_hi < 4u)
            return 0;
        const uintptr_t last = b->mem.stack_hi - 4u;
        for (uint32_t m = mask; m != 0; m &= m - 1u) {
            if (vsp > last)
                return 0;
            regs->r[__builtin_ctz(m)] = *(const uint32_t *)(uintptr_t)vsp;
            vsp += 4u;
        }
    }
    vsp += (rule >> 24) & 0x3cu;
    return finish(regs, sp, vsp, (mask & 0x8000u) != 0, b);
}

#ifdef MSAMP_ARM_TEST_HOOKS
#define CACHE_LOCK msamp_arm_test_lock
#define CACHE_UNLOCK msamp_arm_test_unlock
unsigned long msamp_arm_exidx_decodes;
void (*volatile msamp_arm_exidx_mid_read)(void);
#else
#define CACHE_LOCK msamp_port_lock
#define CACHE_UNLOCK msamp_port_unlock
#endif

/* Entry i: {key, rule}, key the return address (0: empty; pc 0 never gets here). The writer,
 * under the lock (no context of this core runs meanwhile), counts the write in cache_writes, then
 * empties the key, writes the rule and the key last. A reader takes no lock: it reads the count,
 * the entry, and the count again. A rule read with its key went in with that key (the lock keeps
 * any other context from the middle of a write, and an empty key matches nothing); a write that
 * ran between the reader's loads (an interrupt, a preempting task) changed the count, and the
 * entry is taken for a miss. The cache holds the rules of one index: the first walk's bounds. */
static struct {
    volatile uint32_t key, rule;
} cache[MSAMP_CFG_UNWIND_CACHE];
static volatile uint32_t cache_writes;
static volatile uintptr_t cache_lo, cache_hi, cache_text;

#define ROWS (MSAMP_CFG_UNWIND_CACHE / 2u)

/* Two ways of ROWS entries; each takes its row from other bits of the return address's hash (a
 * skewed cache: addresses that share a row in one way seldom share it in the other). */
static unsigned cache_slot(uint32_t h, unsigned way)
{
    return way == 0 ? (unsigned)(h >> 22) & (ROWS - 1u) : ROWS + ((unsigned)(h >> 12) & (ROWS - 1u));
}

static inline __attribute__((always_inline)) uint32_t cache_hash(uint32_t pc)
{
    return (pc >> 1) * 0x9e3779b1u;
}

#ifdef MSAMP_ARM_TEST_HOOKS
unsigned msamp_arm_exidx_cache_slot(uint32_t pc, unsigned way)
{
    return cache_slot(cache_hash(pc & ~1u), way);
}
#endif

/* Whether the cache holds the rules of b's index (claimed by the first walk). Rules depend on the
 * index, on where extab words may lie (text_lo) and on nothing else: stack bounds are applied
 * at each step. */
static int cache_for(const struct msamp_arm_bounds *b)
{
    if (cache_hi == 0) {
        msamp_port_lock_t key = CACHE_LOCK();
        if (cache_hi == 0) {
            cache_lo = b->exidx_lo;
            cache_text = b->mem.text_lo;
            cache_hi = b->exidx_hi;
        }
        CACHE_UNLOCK(key);
    }
    return cache_hi == b->exidx_hi && cache_lo == b->exidx_lo && cache_text == b->mem.text_lo;
}

/* checked: r15 passed bad_pc() in the step before (finish()), so pc, r15 less the Thumb bit, can
 * fail the check of msamp_arm_exidx_step() only by falling below 2 or below text_lo. */
static inline __attribute__((always_inline)) int step_cached(struct msamp_arm_regs *regs,
                                                             const struct msamp_arm_bounds *b,
                                                             int checked)
{
    uint32_t pc = regs->r[15] & ~1u;
    if (checked ? pc < 2u || (b->mem.text_hi != 0 && pc < b->mem.text_lo)
                : bad_pc(pc, b) || pc < 2u)
        return 0;
    uint32_t h = cache_hash(pc);
    unsigned i = cache_slot(h, 0), j = cache_slot(h, 1);
    uint32_t writes = cache_writes;
    if (cache[i].key != pc)
        i = j;
    uint32_t key = cache[i].key;
#ifdef MSAMP_ARM_TEST_HOOKS
    if (msamp_arm_exidx_mid_read != 0)
        msamp_arm_exidx_mid_read();
#endif
    uint32_t rule = cache[i].rule;
    if (key != pc || cache_writes != writes) {
        struct ops o;
        const uint32_t *e = find_entry(pc - 2u, b);
        rule = e == 0 || !load_ops(e, b, &o) ? RULE_NO_STEP : decode(&o);
#ifdef MSAMP_ARM_TEST_HOOKS
        msamp_arm_exidx_decodes++;
#endif
        msamp_port_lock_t k = CACHE_LOCK();
        uint32_t n = cache_writes;
        /* The first way's entry if empty, else the second's if empty, else one in turn. */
        i = cache_slot(h, 0);
        if (cache[i].key != 0 && (cache[j].key == 0 || (n & 1u) != 0))
            i = j;
        cache_writes = n + 1u;
        cache[i].key = 0;
        cache[i].rule = rule;
        cache[i].key = pc;
        CACHE_UNLOCK(k);
    }
    if ((rule & RULE_SPECIAL) == 0)
        return apply(rule, regs, b);
    return rule == RULE_INTERPRET ? msamp_arm_exidx_step(regs, b) : 0;
}
#endif

/* The steps of a walk (cached: by the unwind cache), reporting from the wrapper on. */
static inline __attribute__((always_inline)) unsigned walk_steps(struct msamp_arm_regs *regs,
                                                                 uintptr_t frame,
                                                                 const struct msamp_arm_bounds *b,
                                                                 msamp_frame_fn fn, void *arg,
                                                                 int cached)
{
    unsigned n = 0;
    int reporting = 0;

    for (unsigned steps = 0; steps < MSAMP_ARM_WALK_MAX; steps++) {
#if UNWIND_CACHE
        if (!(cached ? step_cached(regs, b, steps != 0) : msamp_arm_exidx_step(regs, b)))
            break;
#else
        (void)cached;
        if (!msamp_arm_exidx_step(regs, b))
            break;
#endif
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

unsigned msamp_arm_exidx_walk(struct msamp_arm_regs *regs, uintptr_t frame,
                              const struct msamp_arm_bounds *b, msamp_frame_fn fn, void *arg)
{
    /* The wrapper's frame lies in the stack, above the walker's own; outside the stack's bounds,
     * the allocation ran on a stack they leave out. */
    if (frame < b->mem.stack_lo || frame >= b->mem.stack_hi) {
        fn(arg, MSAMP_WALK_OUT_OF_BOUNDS);
        return 0;
    }
    if ((frame & 3u) != 0 || frame < regs->r[13])
        return 0;
#if UNWIND_CACHE
    if (cache_for(b))
        return walk_steps(regs, frame, b, fn, arg, 1);
#endif
    return walk_steps(regs, frame, b, fn, arg, 0);
}
