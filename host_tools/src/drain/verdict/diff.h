/* `drain diff` (verdict/diff.c, docs/VERDICTS.md). */
#ifndef DRAIN_DIFF_H
#define DRAIN_DIFF_H

int drain_diff(int argc, char **argv);

#endif
