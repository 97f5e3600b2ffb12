/*
 * Profile files: a profile written gzip-compressed (zlib, level 1 as Go's runtime/pprof) through a
 * temporary file renamed into place, and read back gzip-compressed or plain, bounded in size.
 */
#ifndef DRAIN_PROF_FILE_H
#define DRAIN_PROF_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "pprof/prof_model.h"

/* Writes gzip-compressed to path (through a temporary file PATH.tmpPID renamed into place), after
 * prof_validate: an invalid profile is never written. 0, or -1 with errno set and a message
 * naming the path and the failing step in err. */
int prof_write_file(const struct prof *p, const char *path, char *err, size_t errlen);
/* The same bytes appended to out instead (the same deflate parameters, so the same gzip file):
 * 0, or -1 with a message in err (an invalid profile, or zlib's failure). */
int prof_write_mem(const struct prof *p, struct buf *out, char *err, size_t errlen);
/* Largest profile read (uncompressed, and compressed): bounds memory whatever a file claims. */
#define PROF_MAX_FILE (1024u * 1024u * 1024u)

/* Reads a gzip-compressed (or plain) profile: p need not be initialized; on success it holds a
 * profile that passed prof_validate. 0, or -1 with a message (naming path) in err. */
int prof_read_file(struct prof *p, const char *path, char *err, size_t errlen);
/* The same from memory: gzip (1f 8b, every member) or raw protobuf. */
int prof_read_mem(struct prof *p, const uint8_t *data, size_t len, char *err, size_t errlen);

#endif
