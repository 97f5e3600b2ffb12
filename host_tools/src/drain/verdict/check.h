/* `drain check` (verdict/check.c, docs/VERDICTS.md). */
#ifndef DRAIN_CHECK_H
#define DRAIN_CHECK_H

int drain_check(int argc, char **argv);

#endif
