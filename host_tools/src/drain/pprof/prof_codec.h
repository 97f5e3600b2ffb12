/*
 * profile.proto's protobuf wire format for the in-memory profile of prof_model.h. The code is
 * hand-written: the schema is small and fixed, encoding streams into one buffer with no
 * per-message allocations (fast for 10^6 samples), and the decoder checks every length against
 * the buffer, which a generated parser would do too but with a build-time codegen step and another
 * package. The decoder renumbers whatever ids a file uses to index + 1.
 */
#ifndef DRAIN_PROF_CODEC_H
#define DRAIN_PROF_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "pprof/prof_model.h"
#include "util.h"

/* Bounds of a profile read (and of one written, which must be readable again): memory stays
 * bounded whatever a file declares. Drain's own largest profiles (10^6 distinct stacks) are far
 * below them. */
#define PROF_MAX_STRINGS (1u << 24) /* string table entries */
#define PROF_MAX_TYPES 256u         /* sample types (so values per sample) */
#define PROF_MAX_ITEMS (1u << 24)   /* functions, mappings, locations, samples: each */
#define PROF_MAX_DEPTH 65536u       /* locations of a sample, lines of a location, labels */
#define PROF_MAX_POOL (1u << 27)    /* location ids of all samples; lines; values; labels */

/* Checks what a profile reader (go tool pprof's CheckValid, and prof_decode) requires: at least
 * one sample type, every string index in the string table (whose entry 0 is ""), every sample
 * with one value per sample type and locations that exist, every location's mapping and every
 * line's function existing, pools consistent, sizes within the bounds above. 0, or -1 with the
 * first problem in err. */
int prof_validate(const struct prof *p, char *err, size_t errlen);

/* Serializes to protobuf bytes. */
void prof_encode(const struct prof *p, struct buf *out);
/* The same in pieces: whenever out holds PROF_ENCODE_CHUNK bytes or more between two top-level
 * fields, and at the end, sink(ctx, out) takes them and empties out (0), or fails (-1): encoding
 * stops there and returns -1. 0 when every byte went to sink. A file's writer holds 1 MiB of the
 * encoding, not all of it (50 MB for 10^6 distinct stacks). */
#define PROF_ENCODE_CHUNK (1u << 20)
int prof_encode_to(const struct prof *p, struct buf *out, int (*sink)(void *ctx, struct buf *out),
                   void *ctx);
/* Appends one sample's Profile.sample field (tag and length included) to out: locations, p->nvt
 * values, labels, as prof_encode writes a sample of these. */
void prof_encode_sample(const struct prof *p, struct buf *out, const uint64_t *locs, uint32_t nloc,
                        const int64_t *vals, const struct prof_label *labels, uint32_t nlabel);
/* Parses protobuf bytes into p (prof_init'ed); on error returns -1 with a message in err (size
 * errlen). A profile decoded without error passes prof_validate. */
int prof_decode(struct prof *p, const uint8_t *data, size_t len, char *err, size_t errlen);

#endif
