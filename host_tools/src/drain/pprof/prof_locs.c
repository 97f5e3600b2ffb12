/*
 * The profile builder's mappings and locations (pprof/prof_locs.h): ELFs matched to a session's
 * images, frames symbolized into pprof locations.
 */
#include "pprof/prof_locs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msamp_arch.h"
#include "pprof/symbolize.h"
#include "util.h"

void bid_hex(char *out, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
    out[2 * n] = 0;
}

static int bid_equal(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    return an > 0 && an == bn && memcmp(a, b, an) == 0;
}

int assign_elves(struct mapinfo *m, size_t nm, int bare, const struct elf_set *es,
                        char *err, size_t errlen)
{
    for (size_t e = 0; e < es->n; e++) {
        size_t blen;
        const uint8_t *bid = sym_build_id(es->elf[e], &blen);
        int used = 0;
        for (size_t i = 0; i < nm; i++) {
            if (m[i].elf)
                continue;
            int match = bid_equal(bid, blen, m[i].build_id, m[i].build_id_len);
            /* A stream without build-ids can only be matched by name (hosted) or trusted (bare). */
            if (!match && m[i].build_id_len == 0)
                match = bare || strcmp(base_name(m[i].path), base_name(sym_path(es->elf[e]))) == 0;
            if (match) {
                m[i].elf = es->elf[e];
                used = 1;
            }
        }
        if (used)
            continue;
        char want[BID_HEX_SIZE] = "", have[BID_HEX_SIZE];
        bid_hex(have, bid, blen);
        size_t pick = 0;
        for (size_t i = 0; i < nm; i++) {
            if (!bare && strcmp(base_name(m[i].path), base_name(sym_path(es->elf[e]))) == 0) {
                pick = i;
                break;
            }
        }
        if (nm)
            bid_hex(want, m[pick].build_id, m[pick].build_id_len);
        if (!es->force || nm == 0 || m[pick].elf) {
            snprintf(err, errlen,
                     "%s: build-id %s does not match the stream's %s%s (use --force to symbolize "
                     "anyway)",
                     sym_path(es->elf[e]), blen ? have : "(none)", nm ? want : "(no mappings)",
                     bare ? "" : " or any other mapping");
            if (es->force)
                continue;
            return -1;
        }
        fprintf(stderr, "drain: warning: %s: build-id %s differs from the stream's %s; --force: "
                        "symbolizing anyway\n",
                sym_path(es->elf[e]), blen ? have : "(none)", want);
        m[pick].elf = es->elf[e];
    }
    return 0;
}

/* A location of one frame that is only a name: "[unknown stack]", "[stack table full]". */
uint64_t named_location(struct prof *p, const char *name)
{
    struct prof_function f = {prof_cstr(p, name), prof_cstr(p, name), 0, 0};
    struct prof_line ln = {prof_add_function(p, &f), 0, 0};
    return prof_add_location(p, 0, 0, &ln, 1, 1);
}

static void loc_cache_grow(struct loc_cache *c, const struct prof *p)
{
    size_t ncap = c->cap ? c->cap * 2 : 1024;
    uint32_t *ne = xcalloc(ncap, sizeof(*ne));
    for (size_t i = 0; i < c->cap; i++) {
        if (c->id[i] == 0)
            continue;
        size_t j = hash_u64(p->location[c->id[i] - 1].address) & (ncap - 1);
        while (ne[j] != 0)
            j = (j + 1) & (ncap - 1);
        ne[j] = c->id[i];
    }
    free(c->id);
    c->id = ne;
    c->cap = ncap;
}

/* The location of a new address addr, symbolized; slot: where a lookup of addr in cache ended
 * (the table not grown since). Out of line: most frames are found in the cache. */
static __attribute__((noinline)) uint64_t new_location(struct prof *p, struct mapinfo *maps,
                                                       size_t nmaps, int bare,
                                                       struct loc_cache *cache, uint64_t addr,
                                                       size_t slot)
{
    if ((cache->count + 1) * 2 > cache->cap) {
        loc_cache_grow(cache, p);
        slot = hash_u64(addr) & (cache->cap - 1);
        while (cache->id[slot] != 0)
            slot = (slot + 1) & (cache->cap - 1);
    }
    size_t mi = SIZE_MAX;
    if (bare) {
        mi = 0;
    } else {
        for (size_t i = 0; i < nmaps; i++) {
            if (addr >= maps[i].start && addr < maps[i].limit) {
                mi = i;
                break;
            }
        }
    }
    struct prof_line lines[SYM_MAX_INLINE];
    int nl = 0;
    if (mi != SIZE_MAX && maps[mi].elf) {
        struct sym_frame fr[SYM_MAX_INLINE];
        uint64_t vaddr = bare ? addr
                              : sym_runtime_to_vaddr(maps[mi].elf, addr, maps[mi].start,
                                                     maps[mi].offset);
        nl = sym_lookup(maps[mi].elf, vaddr, fr, SYM_MAX_INLINE);
        for (int i = 0; i < nl; i++) {
            struct prof_function f = {prof_cstr(p, fr[i].name), prof_cstr(p, fr[i].system_name),
                                      fr[i].file ? prof_cstr(p, fr[i].file) : 0,
                                      fr[i].start_line};
            lines[i] = (struct prof_line){prof_add_function(p, &f), fr[i].line, 0};
        }
    }
    uint64_t id = prof_add_location(p, mi == SIZE_MAX ? 0 : mi + 1, addr, lines, (uint32_t)nl, 0);
    cache->id[slot] = (uint32_t)id;
    cache->count++;
    return id;
}

/* The location of addr: found in the cache (inline, once per frame of every site), or new. */
static inline uint64_t cached_location(struct prof *p, struct mapinfo *maps, size_t nmaps,
                                       int bare, struct loc_cache *cache, uint64_t addr)
{
    const struct prof_location *loc = p->location;
    const uint32_t *id = cache->id;
    size_t mask = cache->cap - 1, slot = hash_u64(addr) & mask;
    for (uint32_t li; (li = id[slot]) != 0; slot = (slot + 1) & mask)
        if (loc[li - 1].address == addr)
            return li;
    return new_location(p, maps, nmaps, bare, cache, addr, slot);
}

uint64_t frame_location(struct prof *p, struct mapinfo *maps, size_t nmaps, int bare,
                               struct loc_cache *cache, uint64_t addr)
{
    if (cache->cap == 0)
        loc_cache_grow(cache, p);
    return cached_location(p, maps, nmaps, bare, cache, addr);
}

/* The pprof mappings of a session (one absolute mapping for bare metal), ELFs not yet assigned. */
struct mapinfo *session_maps(const struct session *s, size_t *nmaps)
{
    int bare = s->nmaps == 0;
    *nmaps = bare ? 1 : s->nmaps;
    struct mapinfo *maps = xcalloc(*nmaps, sizeof(*maps));
    if (bare) {
        maps[0] = (struct mapinfo){0, UINT64_MAX, 0, s->build_id, s->build_id_len, "firmware",
                                   NULL};
    } else {
        for (size_t i = 0; i < *nmaps; i++)
            maps[i] = (struct mapinfo){s->maps[i].start, s->maps[i].limit, s->maps[i].offset,
                                       s->maps[i].build_id, s->maps[i].build_id_len,
                                       s->maps[i].path, NULL};
    }
    return maps;
}

/* The images of a hosted session that no --elf took, the executable's among them, are symbolized from their own files on this
 * machine when the build-id matches (docs/DRAIN.md "Shared libraries"); the others stay module +
 * offset. */
void assign_libraries(struct mapinfo *maps, size_t nmaps)
{
    for (size_t i = 0; i < nmaps; i++)
        if (!maps[i].elf && maps[i].path)
            maps[i].elf = sym_library(maps[i].path, maps[i].build_id, maps[i].build_id_len);
}

/* The locations of site st, innermost first (a named one for the frameless kinds): *nloc; returns
 * its stack's frames (NULL: it has none). */
const uint64_t *site_locs(struct prof *p, const struct session *s, const struct site *st,
                      struct mapinfo *maps, size_t nmaps, int bare, struct loc_cache *cache,
                      uint64_t *locs, uint32_t *nloc)
{
    if (cache->arch == NULL || cache->arch_id != s->arch) { /* once per profile, not per site */
        cache->arch = msamp_arch_get(s->arch);
        cache->arch_id = s->arch;
    }
    if (cache->cap == 0)
        loc_cache_grow(cache, p);
    const struct msamp_arch *arch = cache->arch;
    uint32_t depth = 0, n = 0;
    const uint64_t *fr = session_site_stack(s, st, &depth);
    for (uint32_t k = 0; fr && k < depth; k++) {
        uint64_t a = msamp_arch_call_site(arch, s->ptr_size, fr[k]);
        locs[n++] = cached_location(p, maps, nmaps, bare, cache, a);
    }
    if (n == 0)
        locs[n++] = named_location(p, session_site_kind(st));
    *nloc = n;
    return fr;
}
