/* The post-mortem reader's second stage (postmortem.h): the msamp_heapdump block found in the
 * dump's memory (at the --elf's symbol, moved by a PIE's load bias, else by a scan for its magic
 * in either byte order) and checked field by field against what the dump holds (the block is
 * untrusted); and the watch for the block's magic in plain input (pm_magic_feed). Layout and
 * reading rules: include/msamp_heapdump.h. */
#include "input/postmortem.h"
#include "input/postmortem_dump.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "msamp_arch.h"
#include "util.h"

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

static int is_pow2(uint64_t v)
{
    return v && !(v & (v - 1u));
}

/* Checks the header at a, read in byte order big: 0, or -1 with the reason in why. Fills d. */
static int check_block(struct pm_dump *d, uint64_t a, int big, char *why, size_t n)
{
    const uint8_t *h = pm_mem(d, a, HD_HEADER);
    if (!h) {
        snprintf(why, n, "its header (0x%" PRIx64 ", %u bytes) is not wholly in the dump", a,
                 HD_HEADER);
        return -1;
    }
    if (pm_rd(h, 4, big) != HD_MAGIC) {
        snprintf(why, n, "no magic there (0x%08" PRIx64 ", expected 0x%08x): msamp_init() had not "
                 "run, or the address or the ELF is not the dump's", pm_rd(h, 4, big), HD_MAGIC);
        return -1;
    }
    d->version = (uint32_t)pm_rd(h + 4, 2, big);
    d->ptr = (uint32_t)pm_rd(h + 6, 2, big);
    if (d->version != 3 && d->version != 4) {
        snprintf(why, n, "block version %u: this drain reads versions 3 and 4", d->version);
        return -1;
    }
    if (d->ptr != 4 && d->ptr != 8) {
        snprintf(why, n, "pointer size %u (expected 4 or 8)", d->ptr);
        return -1;
    }
    /* The header's fields in their order (flags since version 4). */
    uint32_t *const field[] = {&d->live_cap,   &d->ways,     &d->stack_cap,   &d->frame_cap,
                               &d->max_depth,  &d->session_id, &d->interval,  &d->tick_hz,
                               &d->live_used,  &d->stacks_used, &d->frames_used, &d->flags};
    for (int i = 0; i < 12; i++)
        *field[i] = i < 11 || d->version >= 4 ? (uint32_t)pm_rd(h + 8 + 4 * i, 4, big) : 0;
    if (d->flags & ~HD_FLAG_CODED) {
        snprintf(why, n, "unknown flags 0x%x", d->flags);
        return -1;
    }
    int coded = d->flags & HD_FLAG_CODED;
    if (!is_pow2(d->live_cap) || d->live_cap > HD_MAX_LIVE) {
        snprintf(why, n, "live_capacity %u (a power of two up to 2^24 expected)", d->live_cap);
        return -1;
    }
    if (!is_pow2(d->ways) || d->ways > d->live_cap) {
        snprintf(why, n, "live_ways %u (a power of two up to live_capacity %u expected)", d->ways,
                 d->live_cap);
        return -1;
    }
    if (d->max_depth == 0 || d->max_depth > MSAMP_WIRE_MAX_DEPTH) {
        snprintf(why, n, "max_depth %u (1..%u expected)", d->max_depth, MSAMP_WIRE_MAX_DEPTH);
        return -1;
    }
    if (coded ? d->stack_cap > HD_MAX_STACKS
              : (!is_pow2(d->stack_cap) || d->stack_cap < 2 || d->stack_cap > HD_MAX_STACKS ||
                 d->frame_cap < d->max_depth + 1u || d->frame_cap > HD_MAX_FRAMES)) {
        snprintf(why, n, "stack_capacity %u, frame_capacity %u (a power of two 2..65536 stacks, "
                 "max_depth+1..2^28 frames expected)", d->stack_cap, d->frame_cap);
        return -1;
    }
    uint64_t pa = a + (HD_HEADER + d->ptr - 1u) / d->ptr * d->ptr;
    const uint8_t *pp = pm_mem(d, pa, 7u * d->ptr);
    if (!pp) {
        snprintf(why, n, "its array pointers (0x%" PRIx64 ") are not wholly in the dump", pa);
        return -1;
    }
    /* The block's array pointers in their order. */
    uint64_t *const array[7] = {&d->a_addr,     &d->a_size,   &d->a_stack, &d->a_birth,
                                &d->a_interval, &d->a_stacks, &d->a_frames};
    uint64_t ptrs[7];
    for (int i = 0; i < 7; i++)
        ptrs[i] = *array[i] = pm_rd(pp + (size_t)i * d->ptr, d->ptr, big);
    static const char *names[7] = {"live_addr", "live_size", "live_stack", "live_birth",
                                   "live_interval", "stacks", "frames"};
    uint64_t lc = d->live_cap, word = d->ptr, byte_or_word = coded ? 1u : word;
    /* Widths as the header declares them: live_addr, live_size and frames are uintptr_t, the
     * stack ids, births and intervals uint32_t (one byte each in the coded block). */
    uint64_t bytes[7] = {lc * word,  lc * byte_or_word, lc * 4u, lc * 4u, coded ? lc : lc * 4u,
                         (uint64_t)d->stack_cap * HD_STACK_ENTRY, (uint64_t)d->frame_cap * word};
    for (int i = 0; i < 7; i++) {
        /* The compact tables' block has no stacks, frames, stack ids or births. */
        int optional = coded && i != 0 && i != 1 && i != 4;
        if (ptrs[i] == 0 && optional)
            continue;
        if (ptrs[i] == 0 || !pm_mem(d, ptrs[i], bytes[i])) {
            snprintf(why, n, "array %s (0x%" PRIx64 ", %" PRIu64 " bytes) is %s", names[i],
                     ptrs[i], bytes[i],
                     ptrs[i] == 0 ? "missing (null pointer)"
                                  : "not wholly in the dump: a truncated image, a wrong base "
                                    "address or a region not dumped");
            return -1;
        }
    }
    d->at = a;
    d->big = big;
    return 0;
}

/* postmortem_dump.h */
int pm_stack_entry(const struct pm_dump *d, const uint8_t *st, const uint8_t *fr, uint32_t id,
                   uint32_t *first, uint32_t *depth)
{
    const uint8_t *e = st + (size_t)id * HD_STACK_ENTRY;
    *first = (uint32_t)pm_rd(e + 4, 4, d->big);
    *depth = (uint32_t)pm_rd(e + 8, 2, d->big);
    if (*depth == 0)
        return 0;
    if (*depth > d->max_depth || *first == 0 || *first > d->frame_cap ||
        *depth > d->frame_cap - *first ||
        pm_rd(fr + (size_t)(*first - 1u) * d->ptr, d->ptr, d->big) != id)
        return -1;
    return 1;
}

/* 1 when the dump holds the --elf's build-id note, moved by bias, with the ELF's bytes. */
static int note_at(const struct pm_dump *d, uint64_t bias)
{
    const uint8_t *p = d->note_len ? pm_mem(d, d->note_addr + bias, d->note_len) : NULL;
    return p && memcmp(p, d->note, d->note_len) == 0;
}

/* A PIE's load bias (docs/POSTMORTEM.md, "Hosted programs"): each file mapping of the core
 * (NT_FILE) at the file offset of one of the ELF's PT_LOAD segments gives a candidate, the start
 * of the mapping less the segment's page; the first whose build-id note the dump holds where the
 * candidate puts it is taken, else the first from a file of the ELF's name. Without NT_FILE (a
 * core of another writer, or --ram images), the pages of the dump that hold the note at its page
 * offset. None found: 0, as for a program linked at fixed addresses. */
static void find_bias(struct pm_dump *d)
{
    d->bias = 0;
    d->bias_how = NULL;
    if (!d->have_elf || !d->elf_dyn || note_at(d, 0))
        return; /* linked at fixed addresses, or loaded where linked (a firmware built as ET_DYN) */
    int named = 0;
    uint64_t named_bias = 0;
    for (size_t i = 0; i < d->nfiles; i++) {
        const struct core_file *f = &d->files[i];
        for (size_t k = 0; k < d->nload; k++) {
            if ((d->load[k].offset & ~(uint64_t)(PAGE - 1u)) != f->offset)
                continue;
            uint64_t bias = f->start - (d->load[k].vaddr & ~(uint64_t)(PAGE - 1u));
            if (note_at(d, bias)) {
                d->bias = bias;
                d->bias_how = "mapped file and build-id note";
                return;
            }
            if (!named && strcmp(base_name(f->path), d->elf_name) == 0) {
                named = 1;
                named_bias = bias;
            }
            break;
        }
    }
    if (named) {
        d->bias = named_bias;
        d->bias_how = "mapped file of the same name";
        return;
    }
    if (!d->note_len)
        return;
    uint64_t in_page = d->note_addr & (PAGE - 1u), page = d->note_addr - in_page;
    for (size_t i = 0; i < d->nr; i++) {
        const struct region *r = &d->r[i];
        uint64_t a = (r->base + PAGE - 1u) & ~(uint64_t)(PAGE - 1u);
        for (; a >= r->base && a - r->base < r->size; a += PAGE) {
            if (note_at(d, a - page)) {
                d->bias = a - page;
                d->bias_how = "build-id note found in the dump";
                return;
            }
        }
    }
}

/* The image holds the firmware's build-id note where the ELF says: they must agree. 0, or -1
 * with a message when they differ. */
static int check_note(const struct pm_dump *d, char *err, size_t errlen)
{
    if (!d->have_elf || !d->note_len)
        return 0;
    const uint8_t *p = pm_mem(d, d->note_addr + d->bias, d->note_len);
    if (p && memcmp(p, d->note, d->note_len) != 0) {
        snprintf(err, errlen, "--elf %s is not the firmware of this dump: its build-id note "
                 "at 0x%" PRIx64 " differs from the dump's bytes there", d->elf_name,
                 d->note_addr + d->bias);
        return -1;
    }
    return 0;
}

/* The block at the address given (pm_set_block_addr) or at the --elf's symbol: 0, or -1 with a
 * message. */
static int find_at(struct pm_dump *d, char *err, size_t errlen)
{
    char why[512];
    uint64_t given = d->have_addr ? d->given_addr : d->sym_addr + d->bias;
    const char *src = d->have_addr ? "given" : "symbol msamp_heapdump of --elf";
    if (d->have_sym && d->sym_size && d->sym_size < HD_HEADER + 7u * 4u) {
        snprintf(err, errlen, "--elf %s: symbol msamp_heapdump is %" PRIu64 " bytes, not the "
                 "block (an ELF of another program?)", d->elf_name, d->sym_size);
        return -1;
    }
    const uint8_t *h = pm_mem(d, given, 4);
    if (!h) {
        snprintf(err, errlen, "the block's address 0x%" PRIx64 " (%s) is in none of the dump's "
                 "regions: a wrong base address (--ram FILE@ADDR), a region not dumped, or an "
                 "ELF of another firmware%s", given, src,
                 d->have_sym && !d->have_addr && d->elf_dyn && !d->bias_how
                     ? " (the ELF is position-independent and its load address was not found: "
                       "no mapping of it in the core's NT_FILE note, no build-id note in the "
                       "dump)"
                     : "");
        return -1;
    }
    int big = pm_rd(h, 4, 0) == HD_MAGIC ? 0 : pm_rd(h, 4, 1) == HD_MAGIC ? 1 : d->elf_big;
    if (check_block(d, given, big, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "no valid msamp_heapdump block at 0x%" PRIx64 " (%s): %s", given,
                 src, why);
        return -1;
    }
    return 0;
}

/* No symbol: scan every region, at 4-byte steps, for a magic in either order whose header passes
 * every check; the first such block is read. 0, or -1 with a message. */
static int find_by_scan(struct pm_dump *d, char *err, size_t errlen)
{
    char why[512];
    d->scanned = 1;
    char first_why[1024] = "";
    int cands = 0, found = 0;
    struct pm_dump keep;
    for (size_t i = 0; i < d->nr; i++) {
        const struct region *r = &d->r[i];
        uint64_t start = (4u - (r->base & 3u)) & 3u;
        for (uint64_t o = start; o + 4u <= r->size; o += 4u) {
            const uint8_t *q = r->p + o;
            int big;
            if (pm_rd(q, 4, 0) == HD_MAGIC)
                big = 0;
            else if (pm_rd(q, 4, 1) == HD_MAGIC)
                big = 1;
            else
                continue;
            cands++;
            if (check_block(d, r->base + o, big, why, sizeof(why)) != 0) {
                if (!first_why[0])
                    snprintf(first_why, sizeof(first_why), "at 0x%" PRIx64 ": %s", r->base + o,
                             why);
                continue;
            }
            if (found++ == 0)
                keep = *d;
        }
    }
    if (!found) {
        uint64_t total = 0;
        for (size_t i = 0; i < d->nr; i++)
            total += d->r[i].size;
        if (cands)
            snprintf(err, errlen, "no valid msamp_heapdump block in the %" PRIu64 " bytes of "
                     "the dump: %d magic%s found, none with a valid header (the first %s)",
                     total, cands, cands == 1 ? "" : "s", first_why);
        else
            snprintf(err, errlen, "no msamp_heapdump block in the %" PRIu64 " bytes of the "
                     "dump (no magic in either byte order): not the device's RAM, a region "
                     "without the block (it is in .bss: dump all RAM), msamp_init() not run, "
                     "or firmware built with MSAMP_CFG_HEAPDUMP=0", total);
        return -1;
    }
    *d = keep;
    d->candidates = found;
    return 0;
}

/* The block found against the --elf: the same byte order and pointer size. 0, or -1 with a
 * message (a wrong ELF). */
static int check_elf_fits(const struct pm_dump *d, char *err, size_t errlen)
{
    if (!d->have_elf)
        return 0;
    if (d->big != d->elf_big) {
        snprintf(err, errlen, "--elf %s is %s-endian but the dump's block is %s-endian: a wrong "
                 "ELF", d->elf_name, d->elf_big ? "big" : "little", d->big ? "big" : "little");
        return -1;
    }
    if ((d->ptr == 8) != d->elf_class64 && msamp_arch_get(d->arch)->class_is_ptr) {
        snprintf(err, errlen, "--elf %s is ELF%d but the dump's block has %u-byte pointers: a "
                 "wrong ELF", d->elf_name, d->elf_class64 ? 64 : 32, d->ptr);
        return -1;
    }
    return 0;
}

/* What the emitter will find (slots in use, stacks defined and skipped), for the description,
 * and the warnings it gives. */
static void tally(struct pm_dump *d)
{
    d->in_use = 0;
    const uint8_t *la = pm_mem(d, d->a_addr, (uint64_t)d->live_cap * d->ptr);
    for (uint32_t i = 0; i < d->live_cap; i++)
        d->in_use += pm_rd(la + (size_t)i * d->ptr, d->ptr, d->big) != 0;
    d->defined = d->skipped_stacks = 0;
    if (!(d->flags & HD_FLAG_CODED)) {
        const uint8_t *st = pm_mem(d, d->a_stacks, (uint64_t)d->stack_cap * HD_STACK_ENTRY);
        const uint8_t *fr = pm_mem(d, d->a_frames, (uint64_t)d->frame_cap * d->ptr);
        for (uint32_t id = 1; id < d->stack_cap; id++) {
            uint32_t first, depth;
            int k = pm_stack_entry(d, st, fr, id, &first, &depth);
            d->defined += k == 1;
            d->skipped_stacks += k < 0;
        }
    }
    size_t w = 0;
    d->warn[0] = 0;
    if (d->candidates > 1)
        w += (size_t)snprintf(d->warn + w, sizeof(d->warn) - w, "%d valid blocks found by the "
                              "scan: the first (0x%" PRIx64 ") is read (give --elf to pick by "
                              "symbol); ", d->candidates, d->at);
    if (d->in_use != d->live_used && w < sizeof(d->warn))
        w += (size_t)snprintf(d->warn + w, sizeof(d->warn) - w, "the block's live_used says %u "
                              "but %u slots are in use (a dump taken mid-update?); ",
                              d->live_used, d->in_use);
    if (d->skipped_stacks && w < sizeof(d->warn))
        w += (size_t)snprintf(d->warn + w, sizeof(d->warn) - w, "%u stack%s skipped (depth or "
                              "frames out of range, or not headed by its id): their samples go to "
                              "[unknown stack]; ", d->skipped_stacks, plural(d->skipped_stacks));
    if (w >= 2 && w < sizeof(d->warn))
        d->warn[w - 2] = 0;
}

int pm_find(struct pm_dump *d, char *err, size_t errlen)
{
    if (d->nr == 0) {
        snprintf(err, errlen, "no memory to read (--ram FILE@ADDR or --core FILE)");
        return -1;
    }
    find_bias(d);
    if (check_note(d, err, errlen) != 0)
        return -1;
    int rc = d->have_addr || d->have_sym ? find_at(d, err, errlen) : find_by_scan(d, err, errlen);
    if (rc != 0 || check_elf_fits(d, err, errlen) != 0)
        return -1;
    d->found = 1;
    tally(d);
    return 0;
}

/* A header at p (n bytes available) that could be the block's: magic in either order, then a
 * known version, pointer size and capacities; 1 also when the header is cut by the chunk's end. */
static int plausible(const uint8_t *p, size_t n)
{
    int big = pm_rd(p, 4, 0) == HD_MAGIC ? 0 : pm_rd(p, 4, 1) == HD_MAGIC ? 1 : -1;
    if (big < 0)
        return 0;
    if (n < HD_HEADER)
        return 1;
    uint64_t version = pm_rd(p + 4, 2, big), ptr = pm_rd(p + 6, 2, big),
             live = pm_rd(p + 8, 4, big), ways = pm_rd(p + 12, 4, big);
    return (version == 3 || version == 4) && (ptr == 4 || ptr == 8) && is_pow2(live) &&
           live <= HD_MAX_LIVE && is_pow2(ways) && ways <= live;
}

void pm_magic_feed(struct pm_magic_scan *m, const uint8_t *p, size_t n)
{
    if (m->seen || n == 0)
        return;
    /* The last three bytes of the previous chunk and the first three of this one: a magic cut by
     * the chunk boundary counts alone. */
    uint8_t join[6];
    size_t k = m->ntail, t = n < 3 ? n : 3;
    memcpy(join, m->tail, k);
    memcpy(join + k, p, t);
    for (size_t i = 0; i + 4 <= k + t && i < k; i++)
        if (plausible(join + i, 4))
            m->seen = 1;
    for (const uint8_t *q = p, *end = p + n; !m->seen && q + 4 <= end; q++) {
        const uint8_t *mq = memchr(q, 'M', (size_t)(end - q)); /* in "MSHD" and "DHSM" */
        if (!mq)
            break;
        q = mq;
        const uint8_t *h = q + 4 <= end && !memcmp(q, "MSHD", 4) ? q
                           : q >= p + 3 && q + 1 <= end && !memcmp(q - 3, "DHSM", 4) ? q - 3
                                                                                        : NULL;
        if (h && plausible(h, (size_t)(end - h)))
            m->seen = 1;
    }
    if (n >= 3) {
        memcpy(m->tail, p + n - 3, 3);
        m->ntail = 3;
    } else {
        size_t keep = k + n > 3 ? 3 - n : k;
        memmove(m->tail, m->tail + (k - keep), keep);
        memcpy(m->tail + keep, p, n);
        m->ntail = keep + n;
    }
}
