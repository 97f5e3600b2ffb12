/*
 * msamp_check: decodes a hosted msamp stream and checks it against what the program that wrote it
 * knows (used by tests/hosted and tests/bench).
 *
 *   msamp_check sites --elf EXE --truth FILE [--z Z] STREAM
 *       Estimates allocated and in-use objects and bytes per allocation site (the function that
 *       called the allocator, symbolized from EXE through the stream's MAPPING records) with
 *       weights 1/(1-exp(-size/interval)), and compares them with the truth file:
 *         site NAME SIZE ALLOCATED LIVE   NAME allocated ALLOCATED blocks of SIZE, LIVE still held
 *         caller NAME CALLER              every sampled stack of NAME has CALLER as frame 1
 *       The device may adapt its interval (docs/ADAPTIVE.md): each live entry keeps the interval it
 *       was sampled at and its own weight; an INTERVAL raise (reasons 1-3) thins the live set as the
 *       device did (include/msamp_thin.h: kept entries weighted by 65536/q16, the others gone, not
 *       freed); a LIVE record's interval is adopted; a redefined stack id is a new stack from then
 *       on; MSAMP_WIRE_STACK_FULL samples count under "[stack table full]".
 *       Each estimate must be within Z standard deviations of the truth (default 4.5). An entry
 *       with inclusion probability P (P = 1/w, w its weight: at allocation for the allocated
 *       estimates, its final one for in-use) contributes size^2 (1-P)/P to the variance of the
 *       bytes estimate and (1-P)/P to the objects': for each truth line (site, size, count) that is
 *       count times the mean of (1-P)/P = w-1 over the site's samples of that size, weighted by w
 *       (each sample stands for w blocks); with no such sample, (1-p)/p at the largest interval of
 *       the session. Exit 1 if any estimate is out of bounds, or a site has no sample it should
 *       have.
 *   msamp_check stacks --elf EXE STREAM
 *       Prints each sampled stack as symbol names, innermost first, with its sample count (each
 *       definition of a stack id the device redefined on a line of its own).
 *   msamp_check live --expect FILE STREAM
 *       With addresses in the stream (MSAMP_CFG_SEND_ADDRESSES): the set of live sampled blocks at
 *       the end must equal the FILE's ("ADDR SIZE" lines, the blocks the program still holds), except
 *       blocks the device could not track (ALLOC slot1=0) and blocks a replayed thinning took out of
 *       the live set, which are counted. When the device raised its interval above 1, held blocks
 *       need not have been sampled: only extra blocks fail then. Exit 1 otherwise.
 *   msamp_check decode STREAM
 *       Decodes the stream and prints its counts; exit 1 if it is damaged (bad or lost frames,
 *       frees of slots that were never allocated) or holds no session.
 *   msamp_check wire STREAM
 *       Bytes on the wire per sampled allocation and per sampled free (stacks, time records and
 *       framing amortized), from the records' encoded sizes; and per sampled allocation with its
 *       free, everything included (the stream's bytes over its ALLOC and REALLOC records).
 * Exit status: 0 pass, 1 check failed, 2 bad usage or unreadable input.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msamp_decode.h"

#define MSAMP_THIN_WORD uint64_t
#include "msamp_thin.h"

#define MAX_IDS (1u << 20)
#define MAX_MAPS 256
#define MAX_SITES 256

/* Per size: the sum of the weights w of samples and of w (w - 1), so that sww / sw is the mean of
 * (1 - P) / P over the blocks they stand for. */
struct sizew {
    uint64_t size;
    double sw, sww;
};
struct wstats {
    struct sizew *v;
    size_t n, cap;
};

/* A stack definition: the frames an id meant from its STACK record on (a device may define an id
 * again once no live entry uses it), or a placeholder for samples of an id not yet defined. */
struct stack {
    uint64_t id;   /* the id it was defined (or first used) under */
    int full;      /* the bucket of MSAMP_WIRE_STACK_FULL samples */
    uint32_t depth;
    uint64_t *frames;
    double alloc_n, alloc_b, samples;
    struct wstats alloc_w; /* allocation-time weights */
};

struct live {
    int valid;
    int seen; /* appeared in a LIVE or ALLOC record during the current snapshot pass */
    uint64_t size, addr, interval; /* interval: the one it stands for (0: unknown) */
    uint32_t def;                  /* its stack definition, or NO_DEF */
    int has_addr;
    double w;                      /* its weight now: 1/P */
};

#define NO_DEF UINT32_MAX

struct map {
    uint64_t start, limit, offset;
    char path[512];
};

struct untracked {
    uint64_t addr;
    struct untracked *next;
};

static struct state {
    uint64_t interval, interval_max;
    uint32_t session_id;
    uint8_t flags;
    struct stack *stacks; /* definitions, in order */
    size_t nstacks, capstacks;
    uint32_t *id_def;     /* stack id -> definition + 1 (0: none) */
    size_t nid_def;
    uint32_t full_def;    /* the "stack table full" bucket + 1 */
    struct live *live;
    size_t nlive;
    uint64_t thinned, raises, lowers, redefined, stack_full;
    struct map maps[MAX_MAPS];
    size_t nmaps;
    uint64_t sessions, allocs, frees, reallocs, untracked_allocs, bad_refs;
    int in_pass;
    uint64_t passes, lost_frees; /* complete snapshot passes; blocks they showed freed unseen */
    struct untracked *untracked;
    struct msamp_record last_drops;
    int have_drops;
    /* wire accounting */
    uint64_t bytes_by_type[16], count_by_type[16];
    uint64_t heap_bytes, heap_count; /* HEAP records (extended type 20) */
} st;

static void die_oom(void)
{
    fprintf(stderr, "msamp_check: out of memory\n");
    exit(2);
}

static void *grow(void *p, size_t *n, size_t want, size_t elem)
{
    if (want <= *n)
        return p;
    size_t m = *n ? *n : 64;
    while (m < want)
        m *= 2;
    p = realloc(p, m * elem);
    if (p == NULL)
        die_oom();
    memset((char *)p + *n * elem, 0, (m - *n) * elem);
    *n = m;
    return p;
}

static double weight(uint64_t size, uint64_t interval)
{
    double s = size ? (double)size : 1.0;
    if (interval <= 1)
        return 1.0;
    return 1.0 / -expm1(-s / (double)interval);
}

static void wstats_add(struct wstats *ws, uint64_t size, double w)
{
    for (size_t i = 0; i < ws->n; i++) {
        if (ws->v[i].size == size) {
            ws->v[i].sw += w;
            ws->v[i].sww += w * (w - 1);
            return;
        }
    }
    ws->v = grow(ws->v, &ws->cap, ws->n + 1, sizeof *ws->v);
    ws->v[ws->n++] = (struct sizew){size, w, w * (w - 1)};
}

static void wstats_merge(struct wstats *to, const struct wstats *from)
{
    for (size_t i = 0; i < from->n; i++) {
        wstats_add(to, from->v[i].size, 0);
        for (size_t k = 0; k < to->n; k++) {
            if (to->v[k].size == from->v[i].size) {
                to->v[k].sw += from->v[i].sw;
                to->v[k].sww += from->v[i].sww;
            }
        }
    }
}

/* The mean of (1 - P) / P over the blocks of `size` that the samples stand for; -1 without any. */
static double wstats_q(const struct wstats *ws, uint64_t size)
{
    for (size_t i = 0; i < ws->n; i++)
        if (ws->v[i].size == size && ws->v[i].sw > 0)
            return ws->v[i].sww / ws->v[i].sw;
    return -1;
}

static void reset_session(void)
{
    for (size_t i = 0; i < st.nstacks; i++) {
        free(st.stacks[i].frames);
        free(st.stacks[i].alloc_w.v);
    }
    st.nstacks = 0;
    if (st.id_def)
        memset(st.id_def, 0, st.nid_def * sizeof *st.id_def);
    st.full_def = 0;
    for (size_t i = 0; i < st.nlive; i++)
        st.live[i].valid = 0;
    st.nmaps = 0;
    st.interval_max = 0;
}

static struct live *slot_at(uint64_t slot)
{
    if (slot >= MAX_IDS) {
        st.bad_refs++;
        return NULL;
    }
    st.live = grow(st.live, &st.nlive, (size_t)slot + 1, sizeof *st.live);
    return &st.live[slot];
}

static uint32_t new_def(uint64_t id, const uint64_t *frames, uint32_t depth)
{
    st.stacks = grow(st.stacks, &st.capstacks, st.nstacks + 1, sizeof *st.stacks);
    struct stack *s = &st.stacks[st.nstacks];
    memset(s, 0, sizeof *s);
    s->id = id;
    if (frames != NULL) {
        s->frames = malloc(sizeof(uint64_t) * depth);
        if (s->frames == NULL)
            die_oom();
        memcpy(s->frames, frames, sizeof(uint64_t) * depth);
        s->depth = depth;
    }
    return (uint32_t)st.nstacks++;
}

/* The definition a sample with this stack id counts under now: the id's current one; id 0 ("stack
 * unknown") and ids not yet defined get a definition without frames; NO_DEF beyond MAX_IDS. */
static uint32_t def_of(uint64_t id)
{
    if (id == MSAMP_WIRE_STACK_FULL) {
        if (st.full_def == 0) {
            st.full_def = new_def(id, NULL, 0) + 1;
            st.stacks[st.full_def - 1].full = 1;
        }
        return st.full_def - 1;
    }
    if (id >= MAX_IDS)
        return NO_DEF;
    st.id_def = grow(st.id_def, &st.nid_def, (size_t)id + 1, sizeof *st.id_def);
    if (st.id_def[id] == 0)
        st.id_def[id] = new_def(id, NULL, 0) + 1;
    return st.id_def[id] - 1;
}

/* STACK: the id means these frames from now on. Its first definition also names the samples that
 * came before it (a late join); the same frames again change nothing; other frames are a new
 * definition (the device evicted the old stack and reused its id). */
static void note_stack(uint64_t id, const uint64_t *frames, uint32_t depth)
{
    if (id == 0 || id == MSAMP_WIRE_STACK_FULL || id >= MAX_IDS || depth == 0)
        return;
    uint32_t d = def_of(id);
    struct stack *s = &st.stacks[d];
    if (s->frames == NULL) {
        s->frames = malloc(sizeof(uint64_t) * depth);
        if (s->frames == NULL)
            die_oom();
        memcpy(s->frames, frames, sizeof(uint64_t) * depth);
        s->depth = depth;
        return;
    }
    if (s->depth == depth && memcmp(s->frames, frames, sizeof(uint64_t) * depth) == 0)
        return;
    st.redefined++;
    st.id_def[id] = new_def(id, frames, depth) + 1;
}

static void note_alloc(uint64_t slot1, uint64_t size, uint64_t stack_id, uint64_t addr, int has_addr)
{
    double w = weight(size, st.interval);
    uint32_t d = def_of(stack_id);
    struct stack *s = d != NO_DEF ? &st.stacks[d] : NULL;

    if (stack_id == MSAMP_WIRE_STACK_FULL)
        st.stack_full++;
    if (s != NULL) {
        s->alloc_n += w;
        s->alloc_b += w * (double)size;
        s->samples += 1;
        wstats_add(&s->alloc_w, size, w);
    }
    if (slot1 == 0) {
        st.untracked_allocs++;
        if (has_addr) {
            struct untracked *u = malloc(sizeof *u);
            if (u == NULL)
                die_oom();
            u->addr = addr;
            u->next = st.untracked;
            st.untracked = u;
        }
        return;
    }
    struct live *l = slot_at(slot1 - 1);
    if (l == NULL)
        return;
    *l = (struct live){1, 1, size, addr, st.interval, d, has_addr, w};
}

/* A block the stream's live set no longer has without a free: `live` mode excuses it. */
static void note_untracked(const struct live *l)
{
    if (!l->has_addr)
        return;
    struct untracked *u = malloc(sizeof *u);
    if (u == NULL)
        die_oom();
    u->addr = l->addr;
    u->next = st.untracked;
    st.untracked = u;
}

/* INTERVAL: a raise by the device (reasons 1-3) thins the live set as the device did. */
static void note_interval(const struct msamp_record *r)
{
    uint64_t to = r->u.interval.interval, reason = r->u.interval.reason;
    if (to == 0)
        return;
    if (MSAMP_INTERVAL_THINS(reason)) {
        uint32_t r_to = to > UINT32_MAX ? UINT32_MAX : (uint32_t)to;
        uint32_t epoch = (uint32_t)r->u.interval.epoch;
        int coded = (st.flags & MSAMP_SESSION_FLAG_CODED_SIZES) != 0;
        st.raises++;
        for (size_t i = 0; i < st.nlive; i++) {
            struct live *l = &st.live[i];
            if (!l->valid || l->interval == 0)
                continue;
            uint64_t size = l->size;
            uint32_t r_e = l->interval > UINT32_MAX ? UINT32_MAX : (uint32_t)l->interval;
            if (coded) {
                size = msamp_thin_decode(msamp_thin_code(size));
                r_e = (uint32_t)msamp_thin_decode(msamp_thin_code(r_e));
            }
            if (r_e >= r_to)
                continue;
            uint32_t q = msamp_thin_q16(size, r_e, r_to);
            if (msamp_thin_keep((uint32_t)i, epoch, st.session_id, q)) {
                l->w *= 65536.0 / q;
                l->interval = to;
            } else {
                l->valid = 0;
                st.thinned++;
                note_untracked(l);
            }
        }
    } else if (reason == MSAMP_INTERVAL_LOWER) {
        st.lowers++;
    }
    st.interval = to;
    if (to > st.interval_max)
        st.interval_max = to;
}

/* LIVE: a known entry adopts the record's interval (reweighted when it differs); any other is a
 * new entry weighted by it. Absent, the interval is the one in force. */
static void note_live(const struct msamp_record *r)
{
    struct live *l = slot_at(r->u.live.slot);
    if (l == NULL)
        return;
    uint64_t iv = r->u.live.has_interval ? r->u.live.interval : st.interval;
    uint32_t d = def_of(r->u.live.stack_id);
    if (l->valid && l->size == r->u.live.size && l->def == d) {
        l->seen = 1;
        if (iv != 0 && iv != l->interval) {
            l->interval = iv;
            l->w = weight(l->size, iv);
        }
        l->addr = r->u.live.addr;
        l->has_addr = r->u.live.has_addr;
        return;
    }
    *l = (struct live){1, 1, r->u.live.size, r->u.live.addr, iv, d, r->u.live.has_addr,
                       weight(r->u.live.size, iv)};
}

static void note_free(uint64_t slot)
{
    struct live *l = slot_at(slot);
    if (l == NULL)
        return;
    /* A FREE of an empty slot is possible only when its ALLOC was lost to a full ring, which
     * the DROPS record then counts; without drops it is damage. */
    if (!l->valid)
        st.bad_refs++;
    l->valid = 0;
}

static void on_record(void *arg, const struct msamp_record *r)
{
    (void)arg;
    if (r->type >= 0 && r->type < 16) {
        st.count_by_type[r->type]++;
        st.bytes_by_type[r->type] += r->wire_len; /* as sent: wire v2's short forms too */
    } else if (r->type == MSAMP_REC_HEAP) {
        st.heap_count++;
        st.heap_bytes += r->wire_len;
    }
    switch (r->type) {
    case MSAMP_REC_SESSION:
        st.sessions++;
        /* A reset, or another device's session (not the first header of a late join). */
        if (r->u.session.resend_seq == 0 ||
            (st.sessions > 1 && r->u.session.session_id != st.session_id))
            reset_session();
        st.interval = r->u.session.interval;
        if (st.interval > st.interval_max)
            st.interval_max = st.interval;
        st.session_id = r->u.session.session_id;
        st.flags = r->u.session.flags;
        break;
    case MSAMP_REC_INTERVAL:
        note_interval(r);
        break;
    case MSAMP_REC_MAPPING:
        if (st.nmaps < MAX_MAPS) {
            struct map *m = &st.maps[st.nmaps];
            size_t n = r->u.mapping.path_len < sizeof m->path - 1 ? r->u.mapping.path_len
                                                                  : sizeof m->path - 1;
            for (size_t i = 0; i < st.nmaps; i++)
                if (st.maps[i].start == r->u.mapping.start)
                    return; /* re-sent */
            m->start = r->u.mapping.start;
            m->limit = r->u.mapping.limit;
            m->offset = r->u.mapping.offset;
            memcpy(m->path, r->u.mapping.path, n);
            m->path[n] = '\0';
            st.nmaps++;
        }
        break;
    case MSAMP_REC_STACK:
        note_stack(r->u.stack.id, r->u.stack.frames, r->u.stack.depth);
        break;
    case MSAMP_REC_ALLOC:
        st.allocs++;
        note_alloc(r->u.alloc.slot1, r->u.alloc.size, r->u.alloc.stack_id, r->u.alloc.addr,
                   r->u.alloc.has_addr);
        break;
    case MSAMP_REC_FREE:
        st.frees++;
        note_free(r->u.free.slot);
        break;
    case MSAMP_REC_REALLOC:
        /* The old block is freed; the new one is a sampled allocation of the new size. */
        st.reallocs++;
        note_free(r->u.realloc.old_slot);
        note_alloc(r->u.realloc.new_slot1, r->u.realloc.size, r->u.realloc.stack_id,
                   r->u.realloc.addr, r->u.realloc.has_addr);
        break;
    case MSAMP_REC_LIVE:
        note_live(r);
        break;
    case MSAMP_REC_SNAP_BEGIN:
        st.in_pass = 1;
        for (size_t i = 0; i < st.nlive; i++)
            st.live[i].seen = 0;
        break;
    case MSAMP_REC_SNAP_END:
        /* Live at SNAP_BEGIN and in no LIVE or ALLOC record since: freed while a FREE was lost. */
        if (st.in_pass) {
            for (size_t i = 0; i < st.nlive; i++) {
                if (st.live[i].valid && !st.live[i].seen) {
                    st.live[i].valid = 0;
                    st.lost_frees++;
                }
            }
            st.passes++;
        }
        st.in_pass = 0;
        break;
    case MSAMP_REC_DROPS:
        st.last_drops = *r;
        st.have_drops = 1;
        break;
    default:
        break;
    }
}

static uint64_t read_stream(const char *path, struct msamp_dec_stats *stats)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "msamp_check: cannot open '%s': %s\n", path, strerror(errno));
        exit(2);
    }
    struct msamp_dec *d = msamp_dec_new(on_record, NULL);
    if (d == NULL)
        die_oom();
    static uint8_t buf[65536];
    size_t n;
    uint64_t total = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        msamp_dec_feed(d, buf, n);
        total += n;
    }
    msamp_dec_finish(d);
    *stats = *msamp_dec_stats(d);
    msamp_dec_free(d);
    fclose(f);
    if (st.sessions == 0) {
        fprintf(stderr, "msamp_check: %s: no SESSION record in %" PRIu64 " bytes\n", path, total);
        exit(1);
    }
    return total;
}

/* ---- symbols ---- */

static Dwfl *dwfl;
static Dwfl_Module *exe_mod;
static GElf_Addr exe_bias;
static Elf *exe_elf;
static const char *exe_path;

static void open_elf(const char *path)
{
    static const Dwfl_Callbacks cb = {
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = dwfl_offline_section_address,
    };
    dwfl = dwfl_begin(&cb);
    if (dwfl == NULL)
        die_oom();
    exe_mod = dwfl_report_offline(dwfl, "exe", path, -1);
    if (exe_mod == NULL || dwfl_report_end(dwfl, NULL, NULL) != 0) {
        fprintf(stderr, "msamp_check: cannot read ELF '%s': %s\n", path, dwfl_errmsg(-1));
        exit(2);
    }
    exe_elf = dwfl_module_getelf(exe_mod, &exe_bias);
    if (exe_elf == NULL) {
        fprintf(stderr, "msamp_check: cannot read ELF '%s': %s\n", path, dwfl_errmsg(-1));
        exit(2);
    }
    exe_path = path;
}

/* The ELF virtual address of a run-time pc in the executable, via the MAPPING that holds it and
 * the PT_LOAD segment at that file offset; the pc itself when the stream has no mappings. */
static int exe_vaddr(uint64_t pc, uint64_t *vaddr)
{
    if (st.nmaps == 0) {
        *vaddr = pc;
        return 1;
    }
    for (size_t i = 0; i < st.nmaps; i++) {
        const struct map *m = &st.maps[i];
        if (pc < m->start || pc >= m->limit)
            continue;
        if (i != 0)
            return 0; /* not the executable (it comes first) */
        uint64_t off = pc - m->start + m->offset;
        size_t nph;
        if (elf_getphdrnum(exe_elf, &nph) != 0)
            return 0;
        for (size_t k = 0; k < nph; k++) {
            GElf_Phdr ph;
            if (gelf_getphdr(exe_elf, (int)k, &ph) == NULL || ph.p_type != PT_LOAD)
                continue;
            if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
                *vaddr = off - ph.p_offset + ph.p_vaddr;
                return 1;
            }
        }
        return 0;
    }
    return 0;
}

/* Function name of a return address ("?" if unknown); the pc is moved back into the call. */
static const char *symbolize(uint64_t pc)
{
    uint64_t va;
    if (!exe_vaddr(pc, &va))
        return "?";
    const char *name = dwfl_module_addrname(exe_mod, va - 1 + exe_bias);
    return name != NULL ? name : "?";
}

/* ---- sites ---- */

struct site {
    char name[128];
    char caller[128];
    double t_alloc_n, t_alloc_b, t_live_n, t_live_b;      /* truth */
    double v_alloc_n, v_alloc_b, v_live_n, v_live_b;      /* variance of the estimates */
    double e_alloc_n, e_alloc_b, e_live_n, e_live_b;      /* estimates */
    uint64_t samples, bad_caller;
    struct wstats alloc_w, live_w; /* its samples' weights at allocation, and live ones' now */
};

/* The truth file's "site" lines, kept until the estimates (and their weights) are known. */
struct truth_line {
    struct site *site;
    double size, n_alloc, n_live;
};
static struct truth_line *truth_lines;
static size_t ntruth_lines, cap_truth_lines;

static struct site sites[MAX_SITES];
static size_t nsites;

static struct site *site_named(const char *name, int create)
{
    for (size_t i = 0; i < nsites; i++)
        if (strcmp(sites[i].name, name) == 0)
            return &sites[i];
    if (!create || nsites == MAX_SITES)
        return NULL;
    struct site *s = &sites[nsites++];
    snprintf(s->name, sizeof s->name, "%s", name);
    return s;
}

static void read_truth(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "msamp_check: cannot open truth '%s': %s\n", path, strerror(errno));
        exit(2);
    }
    char line[512];
    unsigned lineno = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        char name[128], caller[128];
        double size, n_alloc, n_live;
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "site %127s %lf %lf %lf", name, &size, &n_alloc, &n_live) == 4) {
            struct site *s = site_named(name, 1);
            if (s == NULL) {
                fprintf(stderr, "msamp_check: %s:%u: more than %d sites\n", path, lineno, MAX_SITES);
                exit(2);
            }
            s->t_alloc_n += n_alloc;
            s->t_alloc_b += n_alloc * size;
            s->t_live_n += n_live;
            s->t_live_b += n_live * size;
            truth_lines = grow(truth_lines, &cap_truth_lines, ntruth_lines + 1, sizeof *truth_lines);
            truth_lines[ntruth_lines++] = (struct truth_line){s, size, n_alloc, n_live};
        } else if (sscanf(line, "caller %127s %127s", name, caller) == 2) {
            struct site *s = site_named(name, 1);
            if (s == NULL) {
                fprintf(stderr, "msamp_check: %s:%u: more than %d sites\n", path, lineno, MAX_SITES);
                exit(2);
            }
            snprintf(s->caller, sizeof s->caller, "%s", caller);
        } else {
            fprintf(stderr, "msamp_check: %s:%u: bad truth line\n", path, lineno);
            exit(2);
        }
    }
    fclose(f);
}

/* The variances of a site's estimates, from its truth lines: count times the mean (1-P)/P of the
 * blocks of that size (wstats_q), or (1-p)/p at the largest interval when it has no sample of
 * that size. With a constant interval both are (1-p)/p. */
static void truth_variances(void)
{
    double r_max = (double)st.interval_max;
    for (size_t i = 0; i < ntruth_lines; i++) {
        const struct truth_line *t = &truth_lines[i];
        struct site *s = t->site;
        double p = r_max <= 1 ? 1.0 : -expm1(-(t->size ? t->size : 1) / r_max);
        double q_max = (1 - p) / p;
        double qa = wstats_q(&s->alloc_w, (uint64_t)t->size);
        double ql = wstats_q(&s->live_w, (uint64_t)t->size);
        if (qa < 0)
            qa = q_max;
        if (ql < 0)
            ql = q_max;
        s->v_alloc_n += t->n_alloc * qa;
        s->v_alloc_b += t->n_alloc * t->size * t->size * qa;
        s->v_live_n += t->n_live * ql;
        s->v_live_b += t->n_live * t->size * t->size * ql;
    }
}

static int check(const char *site, const char *what, double est, double truth, double var, double z)
{
    double sd = sqrt(var), bound = z * sd + 1e-9 * truth + 1e-9;
    int ok = fabs(est - truth) <= bound;
    printf("  %-22s %-12s est %14.1f truth %14.1f  |diff| %12.1f  bound %12.1f (%.2f sd) %s\n", site,
           what, est, truth, fabs(est - truth), bound, sd > 0 ? fabs(est - truth) / sd : 0.0,
           ok ? "ok" : "FAIL");
    return ok;
}

static int cmd_sites(const char *elf, const char *truth, double z, const char *stream)
{
    struct msamp_dec_stats ds;
    read_stream(stream, &ds);
    open_elf(elf);
    read_truth(truth);
    uint64_t other = 0;

    for (size_t id = 0; id < st.nstacks; id++) {
        struct stack *s = &st.stacks[id];
        if (s->samples == 0)
            continue;
        if (s->frames == NULL || s->depth == 0) {
            other += (uint64_t)s->samples;
            if (s->full)
                printf("  sample outside the known sites: [stack table full] (%g samples)\n",
                       s->samples);
            continue;
        }
        struct site *site = site_named(symbolize(s->frames[0]), 0);
        if (site == NULL) {
            other += (uint64_t)s->samples;
            printf("  sample outside the known sites: %s (%g samples)\n", symbolize(s->frames[0]),
                   s->samples);
            continue;
        }
        site->samples += (uint64_t)s->samples;
        site->e_alloc_n += s->alloc_n;
        site->e_alloc_b += s->alloc_b;
        wstats_merge(&site->alloc_w, &s->alloc_w);
        const char *caller = s->depth > 1 ? symbolize(s->frames[1]) : "(none)";
        if (site->caller[0] != '\0' && strcmp(caller, site->caller) != 0) {
            site->bad_caller += (uint64_t)s->samples;
            printf("  %s: stack %" PRIu64 " has caller %s, expected %s\n", site->name, s->id,
                   caller, site->caller);
        }
    }
    for (size_t i = 0; i < st.nlive; i++) {
        struct live *l = &st.live[i];
        if (!l->valid)
            continue;
        struct stack *s = l->def != NO_DEF ? &st.stacks[l->def] : NULL;
        struct site *site = (s != NULL && s->frames != NULL && s->depth > 0)
                                ? site_named(symbolize(s->frames[0]), 0)
                                : NULL;
        if (site == NULL)
            continue;
        site->e_live_n += l->w;
        site->e_live_b += l->w * (double)l->size;
        wstats_add(&site->live_w, l->size, l->w);
    }
    truth_variances();

    int ok = 1;
    printf("stream: %" PRIu64 " frames ok, %" PRIu64 " bad, %" PRIu64 " lost; %" PRIu64
           " allocs %" PRIu64 " frees %" PRIu64 " reallocs sampled; interval %" PRIu64 "\n",
           ds.frames_ok, ds.frames_bad, ds.frames_lost, st.allocs, st.frees, st.reallocs,
           st.interval);
    printf("interval: largest %" PRIu64 ", %" PRIu64 " raises (%" PRIu64 " live entries thinned), %"
           PRIu64 " lowers; %" PRIu64 " stack ids redefined, %" PRIu64 " samples under [stack "
           "table full]\n",
           st.interval_max, st.raises, st.thinned, st.lowers, st.redefined, st.stack_full);
    if (ds.frames_bad || ds.frames_lost || st.bad_refs) {
        printf("FAIL: damaged stream (%" PRIu64 " bad frames, %" PRIu64 " lost, %" PRIu64
               " bad slot references)\n",
               ds.frames_bad, ds.frames_lost, st.bad_refs);
        ok = 0;
    }
    if (st.have_drops) {
        const struct msamp_record *d = &st.last_drops;
        printf("drops: ring_records=%" PRIu64 " live_full=%" PRIu64 " stack_full=%" PRIu64
               " reentrant=%" PRIu64 " truncated=%" PRIu64 "\n",
               d->u.drops.ring_records, d->u.drops.live_full, d->u.drops.stack_full,
               d->u.drops.reentrant, d->u.drops.truncated);
        /* A full live-table bucket costs only in-use information, which the checks below see.
         * Samples under "[stack table full]" are missing from their sites' estimates. */
        if (d->u.drops.ring_records || d->u.drops.stack_full) {
            printf("FAIL: the device lost records or stacks; the estimates cannot be checked\n");
            ok = 0;
        }
    }
    printf("samples outside the known sites: %" PRIu64 "\n", other);
    for (size_t i = 0; i < nsites; i++) {
        struct site *s = &sites[i];
        printf("%s: %" PRIu64 " samples\n", s->name, s->samples);
        if (s->t_alloc_n == 0)
            continue;
        ok &= check(s->name, "alloc_objs", s->e_alloc_n, s->t_alloc_n, s->v_alloc_n, z);
        ok &= check(s->name, "alloc_bytes", s->e_alloc_b, s->t_alloc_b, s->v_alloc_b, z);
        ok &= check(s->name, "inuse_objs", s->e_live_n, s->t_live_n, s->v_live_n, z);
        ok &= check(s->name, "inuse_bytes", s->e_live_b, s->t_live_b, s->v_live_b, z);
        if (s->bad_caller) {
            printf("FAIL: %s: %" PRIu64 " samples with the wrong caller\n", s->name, s->bad_caller);
            ok = 0;
        }
        /* A site expected to be sampled at least once with probability > 1 - 1e-6. */
        if (s->samples == 0 && s->v_alloc_n < s->t_alloc_n / 14.0) {
            printf("FAIL: %s has no sample\n", s->name);
            ok = 0;
        }
    }
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

static int cmd_stacks(const char *elf, const char *stream)
{
    struct msamp_dec_stats ds;
    read_stream(stream, &ds);
    open_elf(elf);
    for (size_t i = 0; i < st.nstacks; i++) {
        struct stack *s = &st.stacks[i];
        if (s->frames == NULL)
            continue;
        printf("stack %" PRIu64 " samples %g depth %u:", s->id, s->samples, s->depth);
        for (uint32_t k = 0; k < s->depth; k++)
            printf(" %s", symbolize(s->frames[k]));
        printf("\n");
    }
    return 0;
}

static int cmd_live(const char *expect, const char *stream)
{
    struct msamp_dec_stats ds;
    read_stream(stream, &ds);
    FILE *f = fopen(expect, "r");
    if (f == NULL) {
        fprintf(stderr, "msamp_check: cannot open '%s': %s\n", expect, strerror(errno));
        return 2;
    }
    size_t nexp = 0, cap = 0, matched = 0, excused = 0, missing = 0, extra = 0;
    struct { uint64_t addr, size; int seen; } *exp = NULL;
    uint64_t a, sz;
    while (fscanf(f, "%" SCNx64 " %" SCNu64, &a, &sz) == 2) {
        if (nexp == cap) {
            cap = cap ? cap * 2 : 1024;
            exp = realloc(exp, cap * sizeof *exp);
            if (exp == NULL)
                die_oom();
        }
        exp[nexp].addr = a;
        exp[nexp].size = sz;
        exp[nexp++].seen = 0;
    }
    fclose(f);
    /* A FREE of an empty slot is legitimate only after its ALLOC was lost to a full ring. */
    int drops = st.have_drops && st.last_drops.u.drops.ring_records != 0;
    int ok = ds.frames_bad == 0 && ds.frames_lost == 0 && (st.bad_refs == 0 || drops);
    if (!ok)
        printf("FAIL: damaged stream (%" PRIu64 " bad frames, %" PRIu64 " lost, %" PRIu64
               " bad slot references)\n", ds.frames_bad, ds.frames_lost, st.bad_refs);
    for (size_t i = 0; i < st.nlive; i++) {
        struct live *l = &st.live[i];
        if (!l->valid)
            continue;
        if (!l->has_addr) {
            printf("FAIL: the stream carries no addresses (build with MSAMP_CFG_SEND_ADDRESSES=1)\n");
            return 1;
        }
        size_t k;
        for (k = 0; k < nexp; k++)
            if (exp[k].addr == l->addr && !exp[k].seen)
                break;
        if (k == nexp || exp[k].size != l->size) {
            printf("extra: 0x%" PRIx64 " size %" PRIu64 " live in the stream, not held by the program\n",
                   l->addr, l->size);
            extra++;
        } else {
            exp[k].seen = 1;
            matched++;
        }
    }
    /* Above interval 1 (the device raised it) a held block need not have been sampled at all. */
    int all_sampled = st.interval_max <= 1;
    size_t unsampled = 0;
    for (size_t k = 0; k < nexp; k++) {
        if (exp[k].seen)
            continue;
        int untracked = 0;
        for (struct untracked *u = st.untracked; u != NULL; u = u->next)
            untracked |= u->addr == exp[k].addr;
        if (untracked) {
            excused++;
        } else if (!all_sampled) {
            unsampled++;
        } else {
            printf("missing: 0x%" PRIx64 " size %" PRIu64 " held by the program, not live in the stream\n",
                   exp[k].addr, exp[k].size);
            missing++;
        }
    }
    printf("held %zu, live in stream %zu, matched %zu, untracked (live table full, thinned) %zu, "
           "missing %zu, extra %zu; allocs %" PRIu64 " frees %" PRIu64 "; %" PRIu64
           " snapshot passes, %" PRIu64 " lost frees repaired by them\n",
           nexp, matched + extra, matched, excused, missing, extra, st.allocs, st.frees, st.passes,
           st.lost_frees);
    if (st.have_drops)
        printf("device drops: ring_records=%" PRIu64 " live_full=%" PRIu64 "\n",
               st.last_drops.u.drops.ring_records, st.last_drops.u.drops.live_full);
    if (!all_sampled)
        printf("interval raised to %" PRIu64 " (%" PRIu64 " raises, %" PRIu64
               " live entries thinned): %zu held blocks not sampled, not checked\n",
               st.interval_max, st.raises, st.thinned, unsampled);
    ok = ok && missing == 0 && extra == 0 && nexp > 0;
    printf("%s\n", ok ? "PASS" : "FAIL");
    free(exp);
    return ok ? 0 : 1;
}

static int cmd_wire(const char *stream)
{
    struct msamp_dec_stats ds;
    uint64_t total = read_stream(stream, &ds), rec = 0, recs = 0;
    for (int t = 0; t < 16; t++) {
        rec += st.bytes_by_type[t];
        recs += st.count_by_type[t];
    }
    rec += st.heap_bytes; /* record bytes, not framing */
    recs += st.heap_count;
    uint64_t na = st.count_by_type[MSAMP_REC_ALLOC], nf = st.count_by_type[MSAMP_REC_FREE];
    if (na == 0 || nf == 0 || recs == 0) {
        fprintf(stderr, "msamp_check: no sampled allocations and frees in %s\n", stream);
        return 1;
    }
    /* Framing (seq, crc, COBS, delimiter) per record byte; stacks and TIME records are charged to
     * the allocations that needed them. */
    double frame_per_byte = (double)(total - rec) / (double)rec;
    double a = (double)(st.bytes_by_type[MSAMP_REC_ALLOC] + st.bytes_by_type[MSAMP_REC_STACK] +
                        st.bytes_by_type[MSAMP_REC_TIME]) /
               (double)na;
    double f = (double)st.bytes_by_type[MSAMP_REC_FREE] / (double)nf;
    printf("stream %" PRIu64 " bytes, %" PRIu64 " frames, %" PRIu64 " records; framing %.3f bytes "
           "per record byte\n",
           total, ds.frames_ok, recs, frame_per_byte);
    printf("ALLOC %" PRIu64 " (%.2f B each), STACK %" PRIu64 " (%" PRIu64 " B), TIME %" PRIu64
           ", FREE %" PRIu64 " (%.2f B each)\n",
           na, (double)st.bytes_by_type[MSAMP_REC_ALLOC] / (double)na,
           st.count_by_type[MSAMP_REC_STACK], st.bytes_by_type[MSAMP_REC_STACK],
           st.count_by_type[MSAMP_REC_TIME], nf, f);
    if (st.heap_count)
        printf("HEAP %" PRIu64 " (%.2f B each)\nwire_bytes_per_heap_record %.2f\n", st.heap_count,
               (double)st.heap_bytes / (double)st.heap_count,
               (double)st.heap_bytes / (double)st.heap_count * (1 + frame_per_byte));
    printf("wire_bytes_per_sampled_alloc %.2f\n", a * (1 + frame_per_byte));
    printf("wire_bytes_per_sampled_free %.2f\n", f * (1 + frame_per_byte));
    /* Everything included: the whole stream (identity re-sends, snapshot passes, DROPS, END,
     * framing) over the sampled allocations (ALLOC and REALLOC records). */
    printf("wire_bytes_per_sampled_pair %.2f\n",
           (double)total / (double)(na + st.count_by_type[MSAMP_REC_REALLOC]));
    return 0;
}

static int cmd_decode(const char *stream)
{
    struct msamp_dec_stats ds;
    uint64_t total = read_stream(stream, &ds);
    printf("%" PRIu64 " bytes, %" PRIu64 " sessions, %" PRIu64 " frames ok, %" PRIu64 " bad, %" PRIu64
           " lost, %" PRIu64 " records (%" PRIu64 " malformed), %" PRIu64 " allocs, %" PRIu64
           " frees, %" PRIu64 " reallocs, %" PRIu64 " bad slot references\n",
           total, st.sessions, ds.frames_ok, ds.frames_bad, ds.frames_lost, ds.records,
           ds.records_malformed, st.allocs, st.frees, st.reallocs, st.bad_refs);
    int drops = st.have_drops && st.last_drops.u.drops.ring_records != 0;
    int ok = ds.frames_bad == 0 && ds.frames_lost == 0 && ds.records_malformed == 0 &&
             (st.bad_refs == 0 || drops);
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

static void usage(void)
{
    fputs("usage: msamp_check sites --elf EXE --truth FILE [--z Z] STREAM\n"
          "       msamp_check stacks --elf EXE STREAM\n"
          "       msamp_check live --expect FILE STREAM\n"
          "       msamp_check decode STREAM\n"
          "       msamp_check wire STREAM\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *elf = NULL, *truth = NULL, *expect = NULL, *stream = NULL;
    double z = 4.5;
    if (argc < 3)
        usage();
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--elf") == 0 && i + 1 < argc)
            elf = argv[++i];
        else if (strcmp(argv[i], "--truth") == 0 && i + 1 < argc)
            truth = argv[++i];
        else if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc)
            expect = argv[++i];
        else if (strcmp(argv[i], "--z") == 0 && i + 1 < argc)
            z = atof(argv[++i]);
        else if (argv[i][0] == '-' || stream != NULL)
            usage();
        else
            stream = argv[i];
    }
    if (stream == NULL)
        usage();
    elf_version(EV_CURRENT);
    if (strcmp(argv[1], "sites") == 0 && elf && truth)
        return cmd_sites(elf, truth, z, stream);
    if (strcmp(argv[1], "stacks") == 0 && elf)
        return cmd_stacks(elf, stream);
    if (strcmp(argv[1], "live") == 0 && expect)
        return cmd_live(expect, stream);
    if (strcmp(argv[1], "decode") == 0)
        return cmd_decode(stream);
    if (strcmp(argv[1], "wire") == 0)
        return cmd_wire(stream);
    usage();
    return 2;
}
