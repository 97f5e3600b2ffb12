/*
 * The sampling interval's record (model/interval.c), for the dispatch that replays the changes
 * (model/live.c).
 */
#ifndef DRAIN_INTERVAL_H
#define DRAIN_INTERVAL_H

#include "model/session.h"
#include "msamp_decode.h"

/* A change (c, replayed by live.c) counted by its reason and kept in the log. */
void interval_log(struct session *s, const struct interval_change *c);
void interval_on_cmd_ack(struct session *s, const struct msamp_record *r);

#endif
