/*
 * The JSON values every verdict's writer uses (--json, check's and diff's JSON, the heap's).
 */
#ifndef DRAIN_VJSON_H
#define DRAIN_VJSON_H

#include <stdio.h>

/* JSON output: a string (quoted, escaped by json_fput_str, util.h; NULL: null), a number (null when not finite), an
 * estimate {"est","lo","hi"[,"lower_bound": true]} (null where not finite) (verdict/vjson.c). */
void json_str(FILE *f, const char *s);
void json_num(FILE *f, double x);
void json_interval(FILE *f, double est, double lo, double hi, int marked);
#endif
