/*
 * The JSON values every verdict's writer uses (--json, check's and diff's JSON, the heap's).
 */
#ifndef DRAIN_VJSON_H
#define DRAIN_VJSON_H

#include <stdint.h>
#include <stdio.h>

/* JSON output: a string (quoted, escaped by json_fput_str, util.h; NULL: null), a number (null when not finite), an
 * estimate {"est","lo","hi"[,"lower_bound": true]} (null where not finite) (verdict/vjson.c). */
void json_str(FILE *f, const char *s);
void json_num(FILE *f, double x);
/* json_num's text in out (not terminated): its length. The same bytes as "%.0f" for an integer
 * below 9e15 and "%.10g" otherwise, most of them without printf. */
#define JSON_NUM_TEXT 32
size_t json_num_text(char out[JSON_NUM_TEXT], double x);
/* An unsigned integer (printf's %llu). */
void json_u64(FILE *f, uint64_t u);
void json_interval(FILE *f, double est, double lo, double hi, int marked);
#endif
