/*
 * An interactive flame graph (drain --flame FILE.svg, --flame-type inuse|alloc; docs/VIEWS.md)
 * built from a session's built profile (profile.h): one rectangle per frame of the merged call
 * tree, width by bytes, colour by a hash of the name, a title tooltip (name, file:line, bytes,
 * percent), search (highlights matches, shows the matched percent) and click-to-zoom in an inline
 * script, which also honours the URL fragment #search=REGEX and #zoom=NAME. Self-contained: no
 * external resource. Frames narrower than FLAME_MIN_PX are not drawn, nor any beyond the
 * FLAME_MAX_DRAWN widest (their bytes stay in their caller's width; the subtitle counts them).
 */
#ifndef DRAIN_FLAME_H
#define DRAIN_FLAME_H

#include <stdio.h>

#include "pprof/profile.h"
#include "model/session.h"

#define FLAME_MAX_DRAWN 8192  /* frames drawn at most */
#define FLAME_WIDTH 1200      /* SVG width (px) */
#define FLAME_MIN_PX 0.1      /* frames narrower than this (px at full width) are not drawn */

/* Writes the flame graph of b (s: its session, for the title) to path. alloc: allocated bytes,
 * else in-use bytes. 0, or -1 with "PATH: reason" in err. */
int flame_write(const struct built *b, const struct session *s, int alloc, const char *path,
                char *err, size_t errlen);

/* Writes the n bytes of s as XML/HTML text: & < > " ' escaped, bytes outside printable ASCII as
 * '?'. For names and MARK texts (a device's bytes, not trusted). */
void views_xml_text(FILE *f, const char *s, size_t n);

#endif
