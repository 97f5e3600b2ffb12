/* The MARK texts of a decoded stream, in order (NUL-terminated, cut at 23 bytes): what the
 * down-channel's tests compare with the marks the host sent. Include after msamp_decode.h. */
#ifndef MSAMP_MARK_LIST_H
#define MSAMP_MARK_LIST_H

#include <string.h>

struct mark_list {
    char text[64][24];
    int n;
};

/* Adds r's text when r is a MARK (and the list has room). */
static inline void mark_list_add(struct mark_list *m, const struct msamp_record *r)
{
    if (r->type != MSAMP_REC_MARK || m->n >= 64)
        return;
    size_t n = r->u.mark.len < sizeof m->text[0] - 1 ? r->u.mark.len : sizeof m->text[0] - 1;
    memcpy(m->text[m->n], r->u.mark.text, n);
    m->text[m->n++][n] = '\0';
}

#endif
