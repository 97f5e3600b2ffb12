/*
 * drain's command line for a capture (drain [options] INPUT, or a dump: --ram, --core): the options
 * table, made of drain's own options and the views' (views/views.c), the usage text, and the
 * values checked into struct opts, which the driver (driver/drain.c) runs with. The subcommands
 * (merge, check, diff, push, fleet) parse their own. See docs/DRAIN.md.
 */
#ifndef DRAIN_OPTIONS_H
#define DRAIN_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "input/postmortem.h"
#include "views/views.h"

#define MAX_ELVES 16

/* Exit statuses (docs/DRAIN.md "Exit status"). DRAIN_EXIT_OOM (3) is in util.h. */
#define EXIT_FAIL 1   /* input, output, ELF or build-id error */
#define EXIT_USAGE 2  /* the command line is wrong */
#define EXIT_NODATA 4 /* the input held no valid msamp frame: no profile written */

/* A view as the command line set it. */
struct view_conf {
    const char *arg[VIEW_OPTS]; /* the arguments of its options given ("" for a flag) */
    long val;                   /* its VIEW_VALUE option's value */
    int on;
    void *state; /* VIEW_RECORDS */
};

/* The options of a capture, as parse_args checked them. */
struct opts {
    const char *input, *output;
    struct view_conf view[VIEW_MAX];
    double min_life; /* seconds */
    const char *rtt_scan; /* --rtt-scan ADDR:SIZE (gdb: inputs) */
    const char *push;     /* --push CONNINFO: each profile written is stored (fleet/fleet.h) */
    const char *elf_paths[MAX_ELVES];
    size_t nelf;
    int force, follow, quiet, stats;
    const char *ram[PM_MAX_REGIONS], *core; /* a post-mortem dump (input/postmortem.h) */
    size_t nram;
    long baud;
    double every;
    struct control *ctl; /* --send, --send-file (input/control.h) */
};

/* The usage text (drain --help), the views' lines in it. */
void print_usage(FILE *f);

/* Parses argv into o (its ctl, made by the caller, is kept: --send, --send-file, --send-stdin go
 * to it): 0; -1 when --help or --version was answered on stdout; EXIT_USAGE (2) for a wrong
 * command line, said on stderr. */
int parse_args(struct opts *o, int argc, char **argv);

/* The file a session's output goes to: base (--output, or a view's FILE) for session 1's final
 * one, else with ".sN" (session N > 1) and/or ".partK" (partial profile K > 0) inserted before its
 * extension (.pb.gz, .gz, .txt, .folded, .html, .csv, .svg; at the end of another name), as
 * --help says. Allocated: the caller frees it. */
char *derived_name(const char *base, int session, int part);

#endif
