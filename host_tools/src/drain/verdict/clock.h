/*
 * The device's clock against the stream's own pace (docs/DRAIN.md "The device's clock"): a
 * session whose records span far more or far less device time than they took to arrive over a
 * live input, or whose clock never advanced, has times that cannot be right (a firmware that
 * misreads its clock: every time, rate, lifetime and "since" of the session is off by as much).
 * Said on stderr when its profile is written and kept in the profile as a comment
 * "msamp-verdict clock|device_s=D|arrival_s=W|note=TEXT" (W -1: no pace, a file), which --json
 * reads back ("clock_warning").
 */
#ifndef DRAIN_CLOCK_H
#define DRAIN_CLOCK_H

#include <stddef.h>

struct prof;
struct session;

/* The rules' bounds: a live session's device span D and arrival span W disagree when
 * D > CLOCK_FACTOR * W + CLOCK_FAST_SLACK_S (a clock too fast: records cannot arrive before they
 * are made, and the link's queue only delays them) or W > CLOCK_FACTOR * D + CLOCK_SLOW_SLACK_S
 * (too slow: the slack is what a slow link may still hold when the device stops); a clock that
 * stood still over CLOCK_FROZEN_RECORDS timed records (or a live second) is wrong on any input. */
#define CLOCK_FACTOR 10.0
#define CLOCK_FAST_SLACK_S 2.0
#define CLOCK_SLOW_SLACK_S 10.0
#define CLOCK_FROZEN_RECORDS 1000u

/* The note's room: every note whole for any value its numbers may take (the ratio's note, the
 * longest: up to 1227 bytes with three doubles of any size and the hint that names
 * docs/FIRMWARE.md; gcc -Wformat-truncation=2 checks the bound). */
#define CLOCK_NOTE_MAX 1232

struct clock_verdict {
    double device_s, arrival_s; /* arrival_s -1: not live */
    char note[CLOCK_NOTE_MAX];
};

/* 1 (and v filled) when the session's times are implausible, else 0. */
int clock_judge(const struct session *s, struct clock_verdict *v);
/* The comment in p when clock_judge says so. */
void clock_store(const struct session *s, struct prof *p);
/* A profile's clock warning (1), or 0 when it holds none. */
int clock_from_prof(const struct prof *p, struct clock_verdict *v);

#endif
