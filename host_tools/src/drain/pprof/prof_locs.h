/*
 * The profile builder's mappings and locations (pprof/prof_locs.c): a session's images as pprof
 * mappings with the ELFs that symbolize them (--elf, or a hosted library's own file), and a
 * site's frames as symbolized locations, each address once. Used by pprof/profile.c and
 * pprof/prof_notes.c.
 */
#ifndef DRAIN_PROF_LOCS_H
#define DRAIN_PROF_LOCS_H

#include <stddef.h>
#include <stdint.h>

#include "model/session.h"
#include "pprof/built.h"

struct msamp_arch;

/* A build-id as hex text: the stream's and an ELF's are at most MSAMP_WIRE_MAX_BUILD_ID bytes. */
#define BID_HEX_SIZE (2 * MSAMP_WIRE_MAX_BUILD_ID + 1)

/* b's n bytes as hex text into out (2 n + 1 bytes). */
void bid_hex(char *out, const uint8_t *b, size_t n);

/* One pprof mapping per MAPPING record, or one absolute mapping for bare metal. */
struct mapinfo {
    uint64_t start, limit, offset;
    const uint8_t *build_id;
    size_t build_id_len;
    const char *path;
    struct sym_elf *elf;
};

/* One cache of locations by address for all mappings (an address's mapping is a function of the
 * address): memory O(distinct addresses), the mappings searched once per distinct address. An
 * open-addressing table of location ids (0: empty), the address read back from the location:
 * 4 bytes a slot (10^6 distinct addresses: 8 MiB, not a u64 -> u32 map's 32). */
struct loc_cache {
    uint32_t *id;
    size_t cap, count;
    const struct msamp_arch *arch; /* site_locs': the session's, looked up once */
    unsigned arch_id;
};

/* The ELFs of es given to the mappings m (bare: one absolute mapping) by build-id, or by name
 * where the stream has none: 0, or -1 with the message in err (an ELF matches no mapping, unless
 * es->force: a warning, used anyway). */
int assign_elves(struct mapinfo *m, size_t nm, int bare, const struct elf_set *es, char *err,
                 size_t errlen);
/* The pprof mappings of a session (one absolute mapping for bare metal), ELFs not yet assigned:
 * malloc'd, *nmaps of them. */
struct mapinfo *session_maps(const struct session *s, size_t *nmaps);
/* The hosted images no --elf took, symbolized from their own files when the build-id matches. */
void assign_libraries(struct mapinfo *maps, size_t nmaps);
/* A location of one frame that is only a name: "[unknown stack]", "[stack table full]". */
uint64_t named_location(struct prof *p, const char *name);
/* The location of address addr (a call site), symbolized through its mapping's ELF, once per
 * address (cache). */
uint64_t frame_location(struct prof *p, struct mapinfo *maps, size_t nmaps, int bare,
                        struct loc_cache *cache, uint64_t addr);
/* The locations of site st, innermost first (a named one for the frameless kinds): *nloc; returns
 * its stack's frames (NULL: it has none, session_site_stack's). */
const uint64_t *site_locs(struct prof *p, const struct session *s, const struct site *st,
               struct mapinfo *maps, size_t nmaps, int bare, struct loc_cache *cache,
               uint64_t *locs, uint32_t *nloc);

#endif
