/*
 * Profile files: a profile written gzip-compressed (zlib, level 1 as Go's runtime/pprof) through a
 * temporary file renamed into place, and read back gzip-compressed or plain, bounded in size.
 */
#ifndef DRAIN_PROF_FILE_H
#define DRAIN_PROF_FILE_H

#include <stddef.h>

#include "prof_model.h"

/* Writes gzip-compressed to path (through a temporary file renamed into place). 0 or -1 (errno). */
int prof_write_file(const struct prof *p, const char *path);
/* Reads a gzip-compressed (or plain) profile. 0, or -1 with a message in err. */
int prof_read_file(struct prof *p, const char *path, char *err, size_t errlen);

#endif
