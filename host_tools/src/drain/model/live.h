/*
 * The record dispatch (model/live.c), for the way records come in (model/record.c).
 */
#ifndef DRAIN_LIVE_H
#define DRAIN_LIVE_H

#include "model/session.h"
#include "msamp_decode.h"

/* One record applied to the model (the session's header, or defaults, known). */
void live_apply(struct session *s, const struct msamp_record *r);

#endif
