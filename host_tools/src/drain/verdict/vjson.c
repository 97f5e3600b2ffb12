/*
 * The JSON values every verdict's writer uses (verdict/vjson.h).
 */
#include "verdict/vjson.h"

#include <math.h>
#include <string.h>

#include "util.h"

void json_str(FILE *f, const char *s)
{
    if (s)
        json_fput_str(f, s, strlen(s), 0);
    else
        fputs("null", f);
}

void json_num(FILE *f, double x)
{
    if (!isfinite(x))
        fputs("null", f);
    else if (x == floor(x) && fabs(x) < 9e15)
        fprintf(f, "%.0f", x);
    else
        fprintf(f, "%.10g", x);
}

void json_interval(FILE *f, double est, double lo, double hi, int marked)
{
    fputs("{\"est\": ", f);
    json_num(f, est);
    fputs(", \"lo\": ", f);
    json_num(f, lo);
    fputs(", \"hi\": ", f);
    json_num(f, hi);
    if (marked)
        fputs(", \"lower_bound\": true", f);
    fputc('}', f);
}
