/* `drain merge OUT IN...`: merges pprof profiles of the same sample types into one. */
#ifndef DRAIN_MERGE_H
#define DRAIN_MERGE_H

int drain_merge(int argc, char **argv);

#endif
