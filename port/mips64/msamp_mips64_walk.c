/*
 * MIPS64 prologue scanner. n64 code keeps no frame chain, so each step reads the code of the
 * function holding pc: back from the call to the instruction that allocated the frame, then
 * forward again to learn where ra and s8 were saved and how far sp moved. The rules are in
 * port/mips64/README.md; anything they do not cover ends the walk.
 */
#include <stdatomic.h>
#include <stdint.h>

#include "msamp_mips64.h"

#define REG_ZERO 0u
#define REG_SP 29u
#define REG_S8 30u
#define REG_RA 31u

/* Instructions read before the frame allocation for the constants a large frame's second
 * adjustment uses (gcc schedules `lui` ahead of it). */
#define PRE_SCAN 8u

#define OP(w) ((w) >> 26)
#define RS(w) (((w) >> 21) & 31u)
#define RT(w) (((w) >> 16) & 31u)
#define RD(w) (((w) >> 11) & 31u)
#define FUNCT(w) ((w)&63u)
#define SIMM(w) ((uintptr_t)(intptr_t)(int16_t)((w)&0xffffu)) /* sign-extended, modular */
#define NEGATIVE(v) ((intptr_t)(v) < 0)

#define OP_SPECIAL 0x00u
#define OP_ADDIU 0x09u
#define OP_ORI 0x0du
#define OP_LUI 0x0fu
#define OP_DADDIU 0x19u
#define OP_LD 0x37u
#define OP_SD 0x3fu
#define FN_OR 0x25u
#define FN_DADDU 0x2du
#define FN_DSUBU 0x2fu

static int is_return(uint32_t w)
{
    /* jr ra, jr.hb ra, and release 6's jalr zero,ra */
    return w == 0x03e00008u || w == 0x03e00408u || w == 0x03e00009u;
}

static int text_ok(uintptr_t a, const struct msamp_mips64_bounds *b)
{
    return (a & 3u) == 0 && a >= b->text_lo && b->text_hi >= 4u && a <= b->text_hi - 4u;
}

static int stack_ok(uintptr_t a, const struct msamp_mips64_bounds *b)
{
    return (a & 7u) == 0 && a >= b->stack_lo && b->stack_hi >= 8u && a <= b->stack_hi - 8u;
}

static uint32_t insn(uintptr_t a)
{
    return *(const uint32_t *)a;
}

/* `daddiu sp,sp,imm` */
static int is_sp_adjust(uint32_t w)
{
    return OP(w) == OP_DADDIU && RS(w) == REG_SP && RT(w) == REG_SP;
}

/* `sd reg,imm(sp)` */
static int is_save(uint32_t w, unsigned reg)
{
    return OP(w) == OP_SD && RS(w) == REG_SP && RT(w) == reg;
}

/* A register copy `daddu/or dst,src,zero` (either operand order) or `daddiu dst,src,imm`: sets
 * *imm and returns 1 when w computes dst = src + imm. */
static int is_copy(uint32_t w, unsigned dst, unsigned src, uintptr_t *imm)
{
    if (OP(w) == OP_SPECIAL && RD(w) == dst && (FUNCT(w) == FN_DADDU || FUNCT(w) == FN_OR) &&
        ((RS(w) == src && RT(w) == REG_ZERO) || (RS(w) == REG_ZERO && RT(w) == src))) {
        *imm = 0;
        return 1;
    }
    if (OP(w) == OP_DADDIU && RT(w) == dst && RS(w) == src) {
        *imm = SIMM(w);
        return 1;
    }
    return 0;
}

/* The general-purpose registers an instruction may write, as a mask (conservative: more is
 * harmless, it only forgets constants). */
static uint32_t writes(uint32_t w)
{
    switch (OP(w)) {
    case 0x02u: /* j */
    case 0x04u: case 0x05u: case 0x06u: case 0x07u: /* branches */
    case 0x14u: case 0x15u: case 0x16u: case 0x17u:
        return 0;
    case 0x01u: /* regimm: bal and friends write ra */
    case 0x03u: /* jal */
        return 1u << REG_RA;
    case OP_SPECIAL:
    case 0x1cu: /* special2 */
        return 1u << RD(w);
    case 0x1fu: /* special3 */
        if (FUNCT(w) == 0x20u || FUNCT(w) == 0x24u)
            return 1u << RD(w); /* bshfl, dbshfl (seb, seh, wsbh, dsbh, dshd) */
        return 1u << RT(w);     /* ext, ins, dext*, dins*, rdhwr: rd is not a GPR */
    default:
        break;
    }
    if (OP(w) >= 0x28u && OP(w) <= 0x2fu)
        return 0; /* stores */
    if (OP(w) >= 0x38u)
        return 0; /* sc, swc1, sdc1, scd, sd, ... */
    if (OP(w) == 0x31u || OP(w) == 0x32u || OP(w) == 0x35u || OP(w) == 0x36u)
        return 0; /* lwc1, lwc2, ldc1, ldc2: coprocessor registers */
    /* I-type: loads and immediate arithmetic write rt only; the "rd" bits are the immediate's
     * (reading them as a register made `lui v0,0xf3c6` look like a write of s8). */
    return 1u << RT(w);
}

/* What the forward pass learns about the frame: offsets from the CFA (the caller's sp), in
 * modular arithmetic. */
struct frame {
    uintptr_t sp_rel, s8_rel, ra_slot, s8_slot;
    uint8_t sp_known, s8_state, ra_saved, s8_saved;
    uintptr_t k[32]; /* constants known in registers */
    uint32_t k_known;
};
enum { S8_CALLER, S8_FRAME, S8_LOST };

static void track_constants(struct frame *f, uint32_t w)
{
    unsigned rt = RT(w), rs = RS(w);
    int known = 0;
    uintptr_t v = 0;

    if (OP(w) == OP_LUI) {
        v = (uintptr_t)(intptr_t)(int32_t)((w & 0xffffu) << 16);
        known = 1;
    } else if (OP(w) == OP_ORI && (rs == REG_ZERO || (f->k_known >> rs & 1u))) {
        v = (rs == REG_ZERO ? 0 : f->k[rs]) | (w & 0xffffu);
        known = 1;
    } else if ((OP(w) == OP_DADDIU || OP(w) == OP_ADDIU) &&
               (rs == REG_ZERO || (f->k_known >> rs & 1u))) {
        v = (rs == REG_ZERO ? 0 : f->k[rs]) + SIMM(w);
        if (OP(w) == OP_ADDIU)
            v = (uintptr_t)(intptr_t)(int32_t)(uint32_t)v;
        known = 1;
    }
    f->k_known &= ~writes(w);
    if (known && rt != REG_ZERO) {
        f->k[rt] = v;
        f->k_known |= 1u << rt;
    }
}

/* One instruction of the frame's body between its allocation and the call. */
static void track_frame(struct frame *f, uint32_t w)
{
    uintptr_t imm;
    uint32_t wr = writes(w);

    if (is_sp_adjust(w)) {
        f->sp_rel += SIMM(w);
    } else if (OP(w) == OP_SPECIAL && RS(w) == REG_SP && RD(w) == REG_SP &&
               (FUNCT(w) == FN_DSUBU || FUNCT(w) == FN_DADDU)) {
        /* A large frame's second adjustment by a constant, or a dynamic allocation. */
        if (f->k_known >> RT(w) & 1u)
            f->sp_rel = FUNCT(w) == FN_DSUBU ? f->sp_rel - f->k[RT(w)] : f->sp_rel + f->k[RT(w)];
        else
            f->sp_known = 0;
    } else if (is_save(w, REG_RA)) {
        f->ra_slot = f->sp_rel + SIMM(w);
        f->ra_saved = f->sp_known;
    } else if (is_save(w, REG_S8)) {
        f->s8_slot = f->sp_rel + SIMM(w);
        f->s8_saved = f->sp_known;
    } else if (is_copy(w, REG_S8, REG_SP, &imm)) {
        f->s8_rel = f->sp_rel + imm;
        f->s8_state = f->sp_known ? S8_FRAME : S8_LOST;
    } else if (is_copy(w, REG_SP, REG_S8, &imm)) {
        f->sp_rel = f->s8_rel + imm;
        f->sp_known = f->s8_state == S8_FRAME;
    } else {
        if (wr >> REG_SP & 1u)
            f->sp_known = 0;
        if (wr >> REG_S8 & 1u)
            f->s8_state = S8_LOST;
    }
    track_constants(f, w);
}

/* An epilogue inside the function (gcc puts blocks after an early return): [start, end) ends
 * with `jr ra` and its delay slot. Offsets from the CFA, as in struct frame. */
struct epilogue {
    uintptr_t start, end;
    uintptr_t ra_slot;   /* where `ld ra` reloads ra from */
    uintptr_t sp_rel;    /* sp at start, when it is not restored from s8 */
    uintptr_t s8_rel;    /* s8, when sp is restored from it */
    uint8_t from_s8;
};
#define MAX_EPILOGUES 4u
#define MAX_EVENTS 32u

/* `ld reg,imm(sp)` */
static int is_reload(uint32_t w)
{
    return OP(w) == OP_LD && RS(w) == REG_SP;
}

/* `j target` or `jr rs` other than ra: a tail call when an epilogue precedes it. */
static int is_tail_jump(uint32_t w)
{
    return OP(w) == 0x02u || (OP(w) == OP_SPECIAL && FUNCT(w) == 0x08u && RS(w) != REG_RA);
}

/* A branch or jump (it ends a straight-line run of code). */
static int is_control(uint32_t w)
{
    unsigned op = OP(w);
    if (op == OP_SPECIAL)
        return FUNCT(w) == 0x08u || FUNCT(w) == 0x09u; /* jr, jalr */
    return op == 0x01u || (op >= 0x02u && op <= 0x07u) || (op >= 0x14u && op <= 0x17u);
}

/* Instructions an epilogue may hold besides its restores (a return value being moved, say). */
#define EPILOGUE_MAX 64u

/* Reads the epilogue whose `jr ra` (or tail jump) is at ret, backwards from its delay slot:
 * reloads, sp released by positive adjustments or restored from s8, and instructions that touch
 * none of sp, s8 and ra. Returns 1 when it reloads ra. */
static int read_epilogue(uintptr_t ret, const struct msamp_mips64_bounds *b, struct epilogue *e)
{
    uintptr_t rel = 0, imm, ra_off = 0;
    uintptr_t a = ret;
    int ra_found = 0, ra_via_s8 = 0;
    uint32_t w = insn(ret + 4u);
    const uint32_t frame_regs = 1u << REG_SP | 1u << REG_S8 | 1u << REG_RA;

    e->end = ret + 8u;
    e->from_s8 = 0;
    if (is_sp_adjust(w))
        rel -= SIMM(w);
    else if ((writes(w) & frame_regs) != 0)
        return 0;
    for (unsigned n = 0; n < EPILOGUE_MAX && text_ok(a - 4u, b); n++) {
        w = insn(a - 4u);
        if (is_control(w)) {
            break;
        } else if (is_sp_adjust(w)) {
            if (NEGATIVE(SIMM(w)))
                break;
            rel -= SIMM(w);
        } else if (is_reload(w)) {
            if (RT(w) == REG_RA) {
                e->ra_slot = rel + SIMM(w);
                ra_found = 1;
            } else if (RT(w) == REG_S8 && ra_via_s8) {
                return 0; /* s8 reloaded before ra was read through it */
            }
        } else if (OP(w) == OP_LD && RS(w) == REG_S8 && RT(w) == REG_RA) {
            ra_off = SIMM(w); /* `ld ra,k(s8)`: placed once s8's place in the frame is known */
            ra_via_s8 = 1;
        } else if (is_copy(w, REG_SP, REG_S8, &imm)) {
            e->s8_rel = rel - imm;
            e->from_s8 = 1;
            if (ra_via_s8 && !ra_found) {
                e->ra_slot = e->s8_rel + ra_off;
                ra_found = 1;
            }
            a -= 4u;
            break;
        } else if ((writes(w) & frame_regs) != 0) {
            break;
        }
        a -= 4u;
    }
    e->start = a;
    e->sp_rel = rel;
    return ra_found;
}

/* The epilogue must undo this very frame; the code after it runs in the state the code before
 * it left. */
static int epilogue_matches(const struct frame *f, const struct epilogue *ep)
{
    if (!f->ra_saved || ep->ra_slot != f->ra_slot)
        return 0;
    if (ep->from_s8)
        return f->s8_state == S8_FRAME && ep->s8_rel == f->s8_rel;
    return f->sp_known && ep->sp_rel == f->sp_rel;
}

/* How to step out of the function holding pc, found by reading its code: the CFA is the base
 * register (sp or s8) minus cfa_off; ra and (when saved) s8 are at CFA + their slots. */
struct step {
    uintptr_t cfa_off, ra_slot, s8_slot;
    uint8_t from_s8, s8_mode;
};
enum { S8_KEEP, S8_LOAD, S8_UNKNOWN, NO_STEP }; /* NO_STEP: the code proves nothing (cached) */

#ifdef MSAMP_MIPS64_TEST_HOOKS
unsigned long msamp_mips64_describes;
#endif

static int describe(uintptr_t pc, const struct msamp_mips64_bounds *b, struct step *st)
{
    uintptr_t alloc = 0, a = pc;
    struct epilogue epi[MAX_EPILOGUES];
    unsigned nepi = 0;
    int ra_seen = 0;
    /* The instructions that move sp or s8 or save ra or s8, and epilogue starts (tagged with bit
     * 0), as found going back: the forward pass visits only these unless it needs constants. */
    uintptr_t ev[MAX_EVENTS];
    unsigned nev = 0;
    int full_pass = 0;

#ifdef MSAMP_MIPS64_TEST_HOOKS
    msamp_mips64_describes++;
#endif
    if (!text_ok(pc, b) || pc - b->text_lo < 8u)
        return 0;
    /* Back from the call's delay slot to the allocation: the first `daddiu sp,sp,-N` above a save
     * of ra (adjustments found before the save are a large frame's second step). Epilogues of
     * other paths on the way are stepped over and checked against the prologue below. */
    for (unsigned n = 0; n < MSAMP_MIPS64_SCAN_MAX; n++) {
        a -= 4u;
        if (!text_ok(a, b))
            return 0;
        uint32_t w = insn(a);
        if (is_return(w) || is_tail_jump(w)) {
            if (nepi < MAX_EPILOGUES && a + 8u <= pc && read_epilogue(a, b, &epi[nepi])) {
                if (nev > 0 && ev[nev - 1] == a + 4u)
                    nev--; /* the delay slot belongs to the epilogue */
                a = epi[nepi++].start;
                if (nev < MAX_EVENTS)
                    ev[nev++] = a | 1u;
                else
                    full_pass = 1;
                continue;
            }
            /* A return that reloads no ra cannot be proved; a jump that is no epilogue (a switch)
             * is an ordinary instruction, unless its delay slot released the frame. */
            if (is_return(w) || (a + 8u <= pc && is_sp_adjust(insn(a + 4u))))
                return 0;
        }
        if (is_sp_adjust(w) && !NEGATIVE(SIMM(w))) {
            if (text_ok(a - 4u, b) && (is_return(insn(a - 4u)) || is_tail_jump(insn(a - 4u))))
                continue; /* a delay slot: read with the epilogue it ends */
            return 0;     /* a deallocation outside any epilogue */
        }
        if ((writes(w) & (1u << REG_SP | 1u << REG_S8)) != 0 || is_save(w, REG_RA) ||
            is_save(w, REG_S8)) {
            uintptr_t imm;
            if (nev < MAX_EVENTS)
                ev[nev++] = a;
            else
                full_pass = 1;
            if (OP(w) == OP_SPECIAL && RD(w) == REG_SP && !is_copy(w, REG_SP, REG_S8, &imm))
                full_pass = 1; /* sp moved by a register: the forward pass needs constants */
        }
        if (is_sp_adjust(w)) {
            if (ra_seen) {
                alloc = a;
                break;
            }
        } else if (is_save(w, REG_RA)) {
            ra_seen = 1;
        }
    }
    if (alloc == 0)
        return 0;

    /* Start a few instructions earlier for constants, never across a return. */
    uintptr_t start = alloc;
    for (unsigned n = 0; n < PRE_SCAN && text_ok(start - 4u, b); n++) {
        if (is_return(insn(start - 4u)) || (text_ok(start - 8u, b) && is_return(insn(start - 8u))))
            break; /* start - 4 is a return or its delay slot */
        start -= 4u;
    }

    struct frame f;
    f.sp_rel = f.s8_rel = f.ra_slot = f.s8_slot = 0;
    f.sp_known = 1;
    f.s8_state = S8_CALLER;
    f.ra_saved = f.s8_saved = 0;
    f.k_known = 0;
    unsigned e = nepi;
    if (full_pass) {
        for (a = start; a < alloc; a += 4u)
            track_constants(&f, insn(a));
        for (a = alloc; a < pc; a += 4u) {
            if (e > 0 && a == epi[e - 1].start) {
                if (!epilogue_matches(&f, &epi[--e]))
                    return 0;
                a = epi[e].end - 4u;
                continue;
            }
            track_frame(&f, insn(a));
        }
    } else {
        for (unsigned i = nev; i-- > 0;) {
            if ((ev[i] & 1u) != 0) {
                if (e == 0 || !epilogue_matches(&f, &epi[--e]))
                    return 0;
            } else {
                track_frame(&f, insn(ev[i]));
            }
        }
    }
    if (e != 0)
        return 0;

    if (!f.ra_saved)
        return 0;
    if (f.sp_known) {
        st->from_s8 = 0;
        st->cfa_off = f.sp_rel;
    } else if (f.s8_state == S8_FRAME) {
        st->from_s8 = 1;
        st->cfa_off = f.s8_rel;
    } else {
        return 0;
    }
    st->ra_slot = f.ra_slot;
    st->s8_slot = f.s8_slot;
    st->s8_mode = f.s8_saved ? S8_LOAD : f.s8_state == S8_CALLER ? S8_KEEP : S8_UNKNOWN;
    return 1;
}

#if MSAMP_MIPS64_CACHE_BITS > 0
_Static_assert(MSAMP_MIPS64_CACHE_BITS >= 3 && MSAMP_MIPS64_CACHE_BITS <= 16,
               "MSAMP_MIPS64_CACHE_BITS: 0 (no cache), or 3 to 16");
/* Descriptions by return address, in four ways of 2^(bits - 2) rows each. Entry i is
 * {key[i], a[i], b[i]} with key = pc ^ mix(a, b): it checks itself, so an entry torn by an
 * interrupt that walks meanwhile reads as a miss, never as another function's description (and a
 * wrong description could still not fault: every load is checked). */
#define WAYS 4u
#define ROW_BITS (MSAMP_MIPS64_CACHE_BITS - 2)
#define ROWS (1u << ROW_BITS)
static _Atomic uint64_t cache_key[WAYS * ROWS], cache_a[WAYS * ROWS], cache_b[WAYS * ROWS];
static _Atomic uint32_t victim_seed;

#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define STORE(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)

/* b holds the s8 slot (bits 0-31), from_s8 and s8_mode (32-34) and, above, a tag of the return
 * address (the top bits of its hash): a probe reads b alone to pass over another address's
 * entry. */
#define TAG_SHIFT 35u

#define GOLDEN 0x9e3779b97f4a7c15u

/* Two rounds of multiplication: a and b of different entries (one torn) mix to another value. */
static uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t h = (b * GOLDEN ^ a) * GOLDEN;
    return (h ^ h >> 29) | 1u; /* odd: never equal to a 4-aligned pc, so empty slots never match */
}

static uint64_t pc_hash(uintptr_t pc)
{
    return (uint64_t)pc * GOLDEN;
}

/* The entry of a return address (hashed) in a way: each way takes its row from other bits of the
 * hash (a skewed cache). Addresses that share a row in one way seldom share it in the others, so
 * however the code is laid out, the dozen return addresses of a walk find places that hold them
 * all. */
static unsigned slot_of(uint64_t h, unsigned way)
{
    return way * ROWS + (unsigned)(h >> (64u - ROW_BITS * (way + 1u)) & (ROWS - 1u));
}

static inline __attribute__((always_inline)) int tagged(unsigned i, uint64_t h)
{
    return LOAD(cache_b[i]) >> TAG_SHIFT == h >> TAG_SHIFT;
}

/* The first of the four places that holds the address's tag, checked whole. A torn entry, or
 * another address's with the same tag there (a chance in 2^25), reads as a miss; cache_put then
 * writes that place. */
static int cache_get(uintptr_t pc, struct step *st)
{
    uint64_t h = pc_hash(pc);
    unsigned i;
    if (!tagged(i = slot_of(h, 0), h) && !tagged(i = slot_of(h, 1), h) &&
        !tagged(i = slot_of(h, 2), h) && !tagged(i = slot_of(h, 3), h))
        return 0;
    uint64_t b = LOAD(cache_b[i]), key = LOAD(cache_key[i]), a = LOAD(cache_a[i]);
    if (key != ((uint64_t)pc ^ mix(a, b)))
        return 0;
    st->cfa_off = (uintptr_t)(intptr_t)(int32_t)(uint32_t)a;
    st->ra_slot = (uintptr_t)(intptr_t)(int32_t)(uint32_t)(a >> 32);
    st->s8_slot = (uintptr_t)(intptr_t)(int32_t)(uint32_t)b;
    st->from_s8 = (uint8_t)(b >> 32 & 1u);
    st->s8_mode = (uint8_t)(b >> 33 & 3u);
    return 1;
}

static int fits32(uintptr_t v)
{
    return (intptr_t)v == (intptr_t)(int32_t)(uint32_t)v;
}

/* The new entry takes the first of its four places that holds its tag or is empty, else one drawn
 * at random: an address that keeps missing evicts each time another, so the addresses a walk
 * passes again and again settle in places where they all stay (a fixed choice, or the oldest,
 * could evict them in a cycle). */
static void cache_put(uintptr_t pc, const struct step *st)
{
    if (!fits32(st->cfa_off) || !fits32(st->ra_slot) || !fits32(st->s8_slot))
        return;
    uint64_t h = pc_hash(pc);
    uint64_t a = (uint32_t)st->cfa_off | (uint64_t)(uint32_t)st->ra_slot << 32;
    uint64_t b = (uint32_t)st->s8_slot | (uint64_t)(st->from_s8 | st->s8_mode << 1) << 32 |
                 h >> TAG_SHIFT << TAG_SHIFT;
    unsigned way = 0;
    while (way < WAYS && LOAD(cache_key[slot_of(h, way)]) != 0 && !tagged(slot_of(h, way), h))
        way++;
    if (way == WAYS) {
        uint32_t r = LOAD(victim_seed) * 1664525u + 1013904223u; /* an interrupt may lose a step */
        STORE(victim_seed, r);
        way = r >> 30; /* of WAYS = 4 */
    }
    unsigned i = slot_of(h, way);
    STORE(cache_key[i], 0);
    STORE(cache_a[i], a);
    STORE(cache_b[i], b);
    STORE(cache_key[i], (uint64_t)pc ^ mix(a, b));
}

#ifdef MSAMP_MIPS64_TEST_HOOKS
unsigned msamp_mips64_cache_row(uintptr_t pc)
{
    return slot_of(pc_hash(pc), 0);
}
#endif
#endif

int msamp_mips64_step(struct msamp_mips64_regs *regs, const struct msamp_mips64_bounds *b)
{
    const uintptr_t pc = regs->pc, sp = regs->sp;
    struct step st;

    if (!text_ok(pc, b) || pc - b->text_lo < 8u)
        return 0;
#if MSAMP_MIPS64_CACHE_BITS > 0
    if (!cache_get(pc, &st)) {
        if (!describe(pc, b, &st)) {
            st.cfa_off = st.ra_slot = st.s8_slot = 0;
            st.from_s8 = 0;
            st.s8_mode = NO_STEP;
        }
        cache_put(pc, &st);
    }
    if (st.s8_mode == NO_STEP)
        return 0;
#else
    if (!describe(pc, b, &st))
        return 0;
#endif
    uintptr_t cfa = (st.from_s8 ? regs->fp : sp) - st.cfa_off;
    if (cfa <= sp || cfa > b->stack_hi || (cfa & 7u) != 0)
        return 0;
    uintptr_t ra_at = cfa + st.ra_slot;
    if (ra_at < sp || ra_at >= cfa || !stack_ok(ra_at, b))
        return 0;
    uintptr_t ra = *(const uintptr_t *)ra_at;
    uintptr_t fp = st.s8_mode == S8_KEEP ? regs->fp : 0;
    if (st.s8_mode == S8_LOAD) {
        uintptr_t s8_at = cfa + st.s8_slot;
        if (s8_at < sp || s8_at >= cfa || !stack_ok(s8_at, b))
            return 0;
        fp = *(const uintptr_t *)s8_at;
    }
    if (!text_ok(ra, b) || ra - b->text_lo < 8u)
        return 0;
    regs->pc = ra;
    regs->sp = cfa;
    regs->fp = fp;
    return 1;
}

unsigned msamp_mips64_walk(struct msamp_mips64_regs *regs, uintptr_t frame,
                           const struct msamp_mips64_bounds *b, msamp_frame_fn fn, void *arg)
{
    unsigned n = 0;
    int reporting = 0;

    /* The wrapper's frame lies in the stack, above the walker's own; outside the stack's bounds,
     * the allocation ran on a stack they leave out. */
    if (frame < b->stack_lo || frame >= b->stack_hi) {
        fn(arg, MSAMP_WALK_OUT_OF_BOUNDS);
        return 0;
    }
    if ((frame & 7u) != 0 || frame < regs->sp)
        return 0;
    for (unsigned steps = 0; steps < MSAMP_MIPS64_WALK_MAX; steps++) {
        if (!msamp_mips64_step(regs, b))
            break;
        /* Now in the caller, whose sp is the CFA of the function just left. Functions whose frame
         * lies wholly below `frame` (the walker's own, the core's) are not reported; the wrapper
         * is the first whose frame holds it. */
        if (!reporting && regs->sp <= frame)
            continue;
        reporting = 1;
        n++;
        if (fn(arg, regs->pc) == 0)
            break;
    }
    return n;
}
