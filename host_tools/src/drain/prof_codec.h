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

#include "prof_model.h"
#include "util.h"

/* Serializes to protobuf bytes. */
void prof_encode(const struct prof *p, struct buf *out);
/* Parses protobuf bytes into p (prof_init'ed); on error returns -1 with a message in err (size
 * errlen). */
int prof_decode(struct prof *p, const uint8_t *data, size_t len, char *err, size_t errlen);

#endif
