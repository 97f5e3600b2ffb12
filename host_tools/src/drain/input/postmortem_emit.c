/* The post-mortem reader's last stage (postmortem.h): the block found, told: to the session model
 * as the records a stream would have carried for the same live table (SESSION, MAPPINGs, MARK,
 * STACKs, LIVEs), in a line and its warnings for the user, and slot by slot to the heap walk
 * (input/heapwalk.c). */
#include "input/postmortem.h"
#include "input/postmortem_dump.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "msamp_arch.h"
#define MSAMP_THIN_WORD uint64_t
#include "msamp_thin.h"

const char *pm_warnings(const struct pm_dump *d)
{
    return d->warn;
}

void pm_describe(const struct pm_dump *d, char *out, size_t n)
{
    char bias[160] = "";
    if (d->bias_how)
        snprintf(bias, sizeof(bias), ", %s loaded at +0x%" PRIx64 " (%s)", d->elf_name, d->bias,
                 d->bias_how);
    snprintf(out, n, "block at 0x%" PRIx64 " (%s), version %u%s, %s-endian, %u-byte pointers, "
             "%u of %u slots in use, %u stacks, interval %u%s", d->at,
             d->scanned ? "found by scanning" : "symbol msamp_heapdump", d->version,
             d->flags & HD_FLAG_CODED ? " (compact tables: coded sizes, no stacks)" : "",
             d->big ? "big" : "little", d->ptr, d->in_use, d->live_cap, d->defined, d->interval,
             bias);
}

static void emit_mapping(msamp_record_fn fn, void *arg, uint64_t start, uint64_t limit,
                         uint64_t offset, const uint8_t *bid, size_t bid_len, const char *path)
{
    struct msamp_record r;
    memset(&r, 0, sizeof(r));
    r.type = MSAMP_REC_MAPPING;
    r.u.mapping.start = start;
    r.u.mapping.limit = limit;
    r.u.mapping.offset = offset;
    if (bid_len && bid_len <= sizeof(r.u.mapping.build_id)) {
        r.u.mapping.build_id_len = (uint8_t)bid_len;
        memcpy(r.u.mapping.build_id, bid, bid_len);
    }
    r.u.mapping.path = (const uint8_t *)path;
    r.u.mapping.path_len = strlen(path);
    fn(arg, &r);
}

/* A process's core (NT_FILE) or a PIE: MAPPING records, as the hosted port sends them, so that
 * return addresses symbolize at the ELF's own addresses: the --elf's PT_LOAD segments where they
 * were loaded (with its build-id), then the core's other file mappings (shared libraries: their
 * paths, no build-id). A firmware's dump has none: its addresses are the ELF's. */
static void emit_mappings(const struct pm_dump *d, msamp_record_fn fn, void *arg)
{
    if (d->nfiles == 0 && !d->bias_how)
        return;
    size_t ours = 0;
    if (d->have_elf && (!d->elf_dyn || d->bias_how)) {
        for (size_t k = 0; k < d->nload; k++) {
            uint64_t start = d->load[k].vaddr + d->bias;
            emit_mapping(fn, arg, start, start + d->load[k].memsz, d->load[k].offset, d->build_id,
                         d->build_id_len, d->elf_name);
        }
        ours = d->nload;
    }
    for (size_t i = 0; i < d->nfiles; i++) {
        const struct core_file *f = &d->files[i];
        int overlaps = 0;
        for (size_t k = 0; k < ours && !overlaps; k++) {
            uint64_t start = d->load[k].vaddr + d->bias;
            overlaps = f->start < start + d->load[k].memsz && start < f->end;
        }
        if (!overlaps)
            emit_mapping(fn, arg, f->start, f->end, f->offset, NULL, 0, f->path);
    }
}

void pm_emit(const struct pm_dump *d, msamp_record_fn fn, void *arg)
{
    if (!d->found)
        return;
    int coded = d->flags & HD_FLAG_CODED;
    unsigned w = d->ptr;
    struct msamp_record r;
    memset(&r, 0, sizeof(r));
    r.type = MSAMP_REC_SESSION;
    r.u.session.version = MSAMP_WIRE_VERSION;
    r.u.session.flags = (uint8_t)((d->big ? MSAMP_SESSION_FLAG_BIG_ENDIAN : 0u) |
                                  MSAMP_SESSION_FLAG_ADDRESSES);
    r.u.session.arch = (uint8_t)(d->have_elf ? d->arch : MSAMP_ARCH_UNKNOWN);
    r.u.session.ptr_size = (uint8_t)w;
    r.u.session.session_id = d->session_id;
    r.u.session.tick_hz = d->tick_hz;
    r.u.session.interval = d->interval;
    r.u.session.live_capacity = d->live_cap;
    r.u.session.stack_capacity = d->stack_cap;
    r.u.session.max_depth = d->max_depth;
    if (d->have_elf) {
        r.u.session.build_id_len = (uint8_t)d->build_id_len;
        memcpy(r.u.session.build_id, d->build_id, d->build_id_len);
    }
    fn(arg, &r);
    emit_mappings(d, fn, arg);

    char text[MSAMP_WIRE_MAX_MARK + 1];
    int tl = snprintf(text, sizeof(text), "post-mortem: heapdump v%u at 0x%" PRIx64 "%s",
                      d->version, d->at, coded ? ", coded sizes" : "");
    memset(&r, 0, sizeof(r));
    r.type = MSAMP_REC_MARK;
    r.u.mark.text = (const uint8_t *)text;
    r.u.mark.len = tl < 0 ? 0 : (size_t)tl < sizeof(text) ? (size_t)tl : sizeof(text) - 1u;
    fn(arg, &r);

    /* Stacks: ids 1..capacity-1 with depth != 0 (stored last), frames wholly in the pool and
     * headed by their id (a stack being moved has depth 0; anything else inconsistent is
     * skipped and its slots' samples go to [unknown stack]). */
    if (!coded) {
        const uint8_t *st = pm_mem(d, d->a_stacks, (uint64_t)d->stack_cap * HD_STACK_ENTRY);
        const uint8_t *fr = pm_mem(d, d->a_frames, (uint64_t)d->frame_cap * w);
        uint64_t frames[MSAMP_WIRE_MAX_DEPTH];
        for (uint32_t id = 1; id < d->stack_cap; id++) {
            uint32_t first, depth;
            if (pm_stack_entry(d, st, fr, id, &first, &depth) != 1)
                continue;
            for (uint32_t k = 0; k < depth; k++)
                frames[k] = pm_rd(fr + (size_t)(first + k) * w, w, d->big);
            memset(&r, 0, sizeof(r));
            r.type = MSAMP_REC_STACK;
            r.u.stack.id = id;
            r.u.stack.depth = depth;
            r.u.stack.frames = frames;
            fn(arg, &r);
        }
    }
    const uint8_t *la = pm_mem(d, d->a_addr, (uint64_t)d->live_cap * w);
    const uint8_t *ls = pm_mem(d, d->a_size, (uint64_t)d->live_cap * (coded ? 1u : w));
    const uint8_t *li = pm_mem(d, d->a_interval, (uint64_t)d->live_cap * (coded ? 1u : 4u));
    const uint8_t *lk = d->a_stack ? pm_mem(d, d->a_stack, (uint64_t)d->live_cap * 4u) : NULL;
    const uint8_t *lb = d->a_birth ? pm_mem(d, d->a_birth, (uint64_t)d->live_cap * 4u) : NULL;
    for (uint32_t i = 0; i < d->live_cap; i++) {
        uint64_t addr = pm_rd(la + (size_t)i * w, w, d->big);
        if (addr == 0)
            continue;
        memset(&r, 0, sizeof(r));
        r.type = MSAMP_REC_LIVE;
        r.u.live.slot = i;
        r.u.live.addr = addr & ~(uint64_t)1; /* bit 0: a realloc under way (docs/POSTMORTEM.md) */
        r.u.live.has_addr = 1;
        r.u.live.has_interval = 1;
        if (coded) {
            r.u.live.size = msamp_thin_decode(ls[i]);
            r.u.live.interval = msamp_thin_decode(li[i]);
        } else {
            r.u.live.size = pm_rd(ls + (size_t)i * w, w, d->big);
            r.u.live.interval = pm_rd(li + (size_t)i * 4u, 4, d->big);
        }
        r.u.live.stack_id = lk ? pm_rd(lk + (size_t)i * 4u, 4, d->big) : 0;
        r.u.live.birth = lb ? pm_rd(lb + (size_t)i * 4u, 4, d->big) : 0;
        fn(arg, &r);
    }
}

int pm_big(const struct pm_dump *d)
{
    return d->big;
}

unsigned pm_ptr(const struct pm_dump *d)
{
    return d->ptr;
}

uint64_t pm_bias(const struct pm_dump *d)
{
    return d->bias;
}

uint32_t pm_live_capacity(const struct pm_dump *d)
{
    return d->found ? d->live_cap : 0;
}

int pm_live_slot(const struct pm_dump *d, uint32_t i, uint64_t *addr, uint64_t *size,
                 uint32_t *stack)
{
    if (!d->found || i >= d->live_cap)
        return 0;
    unsigned w = d->ptr;
    int coded = d->flags & HD_FLAG_CODED;
    const uint8_t *la = pm_mem(d, d->a_addr + (uint64_t)i * w, w);
    const uint8_t *ls = pm_mem(d, d->a_size + (uint64_t)i * (coded ? 1u : w), coded ? 1u : w);
    const uint8_t *lk = d->a_stack ? pm_mem(d, d->a_stack + (uint64_t)i * 4u, 4) : NULL;
    uint64_t a = la ? pm_rd(la, w, d->big) : 0;
    if (a == 0 || !ls)
        return 0;
    *addr = a & ~(uint64_t)1;
    *size = coded ? msamp_thin_decode(ls[0]) : pm_rd(ls, w, d->big);
    *stack = lk ? (uint32_t)pm_rd(lk, 4, d->big) : 0;
    return 1;
}

size_t pm_block_spans(const struct pm_dump *d, uint64_t lo[8], uint64_t hi[8])
{
    if (!d->found)
        return 0;
    int coded = d->flags & HD_FLAG_CODED;
    uint64_t w = d->ptr, c = d->live_cap;
    const uint64_t at[8] = {d->at, d->a_addr, d->a_size, d->a_stack, d->a_birth, d->a_interval,
                            d->a_stacks, d->a_frames};
    const uint64_t len[8] = {HD_HEADER + 7u * w, c * w, c * (coded ? 1u : w), c * 4u, c * 4u,
                             c * (coded ? 1u : 4u), (uint64_t)d->stack_cap * HD_STACK_ENTRY,
                             (uint64_t)d->frame_cap * w};
    size_t n = 0;
    for (size_t i = 0; i < 8; i++)
        if (at[i] && len[i] && at[i] + len[i] > at[i]) {
            lo[n] = at[i];
            hi[n++] = at[i] + len[i];
        }
    return n;
}
