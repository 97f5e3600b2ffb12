/* drain's command line for a capture (options.h): the usage text, the options table (drain's own
 * and the views'), each option parsed into struct opts, and the operands checked. */
#include "driver/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "fleet/pq.h"
#include "input/control.h"
#include "input/input.h"
#include "msamp_wire.h"
#include "pprof/profile.h"
#include "util.h"

static const char usage_head[] =
    "usage: drain [options] INPUT\n"
    "       drain [options] --ram FILE@ADDR... | --core FILE\n"
    "       drain merge OUT.pb.gz IN.pb.gz...\n"
    "       drain check INPUT --budget SPEC... [--budgets FILE] [--junit FILE] [--json FILE]\n"
    "                   [--elf FILE] [--per-budget]\n"
    "       drain diff BASE NEW [--json FILE] [--top N]\n"
    "       drain push --db CONNINFO PROFILE...\n"
    "       drain fleet --db CONNINFO merge OUT.pb.gz|top|devices|leaks [FILTER]...\n"
    "Reads an msamp stream and writes a gzip-compressed pprof heap profile per device session.\n"
    "INPUT: a tty (/dev/ttyUSB0), a file, - for stdin, tcp:HOST:PORT (connect: QEMU -serial\n"
    "  tcp:HOST:PORT,server), or tcp-listen:[HOST:]PORT (listen on HOST, default 127.0.0.1, and\n"
    "  read the connection accepted: MSAMP_OUTPUT=tcp:..., QEMU -serial tcp:HOST:PORT), or\n"
    "  gdb:HOST:PORT (the firmware's SEGGER RTT channel through a GDB server: QEMU -gdb,\n"
    "  OpenOCD, JLinkGDBServer, pyocd gdbserver; the block found by --elf or --rtt-scan)\n"
    "  -o, --output FILE    profile of the first session (default heap.pb.gz); later sessions\n"
    "                       go to STEM.sN.pb.gz, partial profiles to STEM[.sN].partK.pb.gz\n"
    "  -e, --elf FILE       symbolize with this ELF's DWARF (repeat for more images)\n"
    "  -f, --force          symbolize even when the ELF's build-id differs from the stream's\n"
    "  -b, --baud N         tty speed (default 115200)\n"
    "      --rtt-scan ADDR:SIZE  gdb: scan this RAM for the RTT control block (default: the\n"
    "                       symbol _SEGGER_RTT of the first --elf, else its writable sections)\n"
    "  -F, --follow         keep reading a regular file as it grows (stop with Ctrl-C); a\n"
    "                       truncated, rotated or replaced file is read again from its start;\n"
    "                       tcp-listen: accept the next connection after each disconnect\n"
    "  -E, --every SECONDS  also write a numbered partial profile every SECONDS\n";
/* ... then each view's lines (views[], views/views.c), then: */
static const char usage_tail[] =
    "  -q, --quiet          no status line and no summary on stderr\n"
    "      --send CMD       send a command to the device at start (repeatable): enable, disable,\n"
    "                       snapshot, identity, interval=N, bounds=MIN:MAX, mark=TEXT; acks are\n"
    "                       reported on stderr. Following a tty, tcp: or gdb: input, commands\n"
    "                       typed on the terminal (one a line) are sent too. See docs/CONTROL.md\n"
    "      --send-file PATH send commands by appending them to PATH (semihosting: msamp.cmd)\n"
    "                       or writing them to the FIFO PATH (hosted: MSAMP_CONTROL)\n"
    "      --send-stdin     read commands from stdin (one a line) even when it is no terminal\n"
    "      --push CONNINFO  store each profile written (partial and final) in PostgreSQL too, as\n"
    "                       drain push does (docs/FLEET.md)\n"
    "      --stats          print decode and profile-writing times and peak memory at the end\n"
    "      --ram FILE@ADDR  read the in-use profile from a raw RAM image starting at ADDR (gdb\n"
    "                       dump binary memory, OpenOCD dump_image, QEMU pmemsave); repeat for\n"
    "                       more regions. --elf gives symbols and the block's address\n"
    "      --core FILE      ... from an ELF core (gdb gcore, QEMU dump-guest-memory)\n"
    "  -h, --help           this text;  -V, --version: the version\n"
    "A dump (--ram, --core: docs/POSTMORTEM.md) takes the place of INPUT.\n"
    "Exit status: 0 profile written; 1 input, output, ELF or build-id error; 2 bad command\n"
    "line; 3 out of memory; 4 no msamp frame in the input (nothing written). See docs/DRAIN.md.\n";

void print_usage(FILE *f)
{
    fputs(usage_head, f);
    for (size_t v = 0; v < nviews; v++)
        fputs(views[v].help, f);
    fputs(usage_tail, f);
}

/* options.h */
char *derived_name(const char *base, int session, int part)
{
    size_t n = strlen(base), stem = n;
    const char *exts[] = {".pb.gz", ".gz", ".txt", ".folded", ".html", ".csv", ".svg"};
    for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
        size_t el = strlen(exts[i]);
        if (n > el && strcmp(base + n - el, exts[i]) == 0) {
            stem = n - el;
            break;
        }
    }
    char *out = xmalloc(n + 48);
    int len = snprintf(out, n + 48, "%.*s", (int)stem, base);
    if (session > 1)
        len += snprintf(out + len, n + 48 - (size_t)len, ".s%d", session);
    if (part > 0)
        len += snprintf(out + len, n + 48 - (size_t)len, ".part%d", part);
    snprintf(out + len, n + 48 - (size_t)len, "%s", base + stem);
    return out;
}

/* A time with a unit (ns, us, ms, s, m, h, d) in seconds, > 0 and at most a year. */
static int parse_duration(const char *s, double *out)
{
    static const struct {
        const char *unit;
        double s;
    } units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1},
                 {"m", 60},    {"h", 3600}, {"d", 86400}};
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !(v > 0))
        return -1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(end, units[i].unit) == 0) {
            v *= units[i].s;
            if (!(v <= 366.0 * 86400))
                return -1;
            *out = v;
            return 0;
        }
    }
    return -1;
}

/* Option c (getopt's answer) when it is a view's (views[]): 0 taken, 2 (EXIT_USAGE) wrong, said on
 * stderr; -1 when it is none of theirs. */
#define VIEW_OPT 0x200
static int view_option(struct opts *o, int c, const char *arg)
{
    for (size_t v = 0; v < nviews; v++) {
        for (size_t i = 0; i < VIEW_OPTS && views[v].opt[i].name; i++) {
            const struct view_opt *vo = &views[v].opt[i];
            if (c != (vo->letter ? vo->letter : VIEW_OPT + (int)(VIEW_OPTS * v + i)))
                continue;
            struct view_conf *vc = &o->view[v];
            char msg[600];
            if (vo->check && vo->check(arg, &vc->val, msg, sizeof(msg)) != 0) {
                fprintf(stderr, "drain: %s\n", msg);
                return EXIT_USAGE;
            }
            vc->arg[i] = vo->arg == VIEW_FLAG ? "" : arg;
            vc->on |= vo->on;
            return 0;
        }
    }
    return -1;
}

/* drain's own options; the views' follow them in the tables (opt_tables). */
static const struct option base_opts[] = {
    {"output", required_argument, 0, 'o'}, {"elf", required_argument, 0, 'e'},
    {"force", no_argument, 0, 'f'},        {"baud", required_argument, 0, 'b'},
    {"follow", no_argument, 0, 'F'},       {"every", required_argument, 0, 'E'},
    {"quiet", no_argument, 0, 'q'},        {"help", no_argument, 0, 'h'},
    {"version", no_argument, 0, 'V'},      {"stats", no_argument, 0, 'S'},
    {"ram", required_argument, 0, 0x100},  {"core", required_argument, 0, 0x101},
    {"send", required_argument, 0, 'C'},   {"send-file", required_argument, 0, 'P'},
    {"rtt-scan", required_argument, 0, 'R'}, {"send-stdin", no_argument, 0, 'I'},
    {"min-lifetime", required_argument, 0, 0x107}, {"push", required_argument, 0, 0x108}};
enum { NBASE = sizeof(base_opts) / sizeof(base_opts[0]) };

/* getopt_long's tables: drain's options, then the views' (views[]): getopt returns VIEW_OPT +
 * VIEW_OPTS * view + option for those without a letter. */
struct opt_tables {
    struct option longopts[NBASE + VIEW_MAX * VIEW_OPTS + 1];
    char shortopts[64];
};

static void opt_tables(struct opt_tables *t)
{
    strcpy(t->shortopts, ":o:e:fb:FE:qhV");
    size_t nlong = NBASE, nshort = strlen(t->shortopts);
    memcpy(t->longopts, base_opts, sizeof(base_opts));
    for (size_t v = 0; v < nviews; v++) {
        for (size_t i = 0; i < VIEW_OPTS && views[v].opt[i].name; i++) {
            const struct view_opt *vo = &views[v].opt[i];
            int has = vo->arg == VIEW_FLAG ? no_argument : required_argument;
            int val = vo->letter ? vo->letter : VIEW_OPT + (int)(VIEW_OPTS * v + i);
            t->longopts[nlong++] = (struct option){vo->name, has, 0, val};
            if (vo->letter) {
                t->shortopts[nshort++] = (char)vo->letter;
                if (has == required_argument)
                    t->shortopts[nshort++] = ':';
            }
        }
    }
    t->longopts[nlong] = (struct option){0, 0, 0, 0};
    t->shortopts[nshort] = 0;
}

/* --ram FILE@ADDR: 0 kept; EXIT_USAGE, said on stderr. */
static int ram_option(struct opts *o, const char *arg)
{
    const char *at = strrchr(arg, '@');
    char *end;
    errno = 0;
    if (!at || at == arg || !at[1] || at[1] == '-' || (strtoull(at + 1, &end, 0), errno) || *end) {
        fprintf(stderr, "drain: --ram %s: expected FILE@ADDR (ram.bin@0x40000000)\n", arg);
        return EXIT_USAGE;
    }
    if (o->nram == PM_MAX_REGIONS) {
        fprintf(stderr, "drain: at most %d --ram images\n", PM_MAX_REGIONS);
        return EXIT_USAGE;
    }
    o->ram[o->nram++] = arg;
    return 0;
}

/* Option c (getopt's answer, argument arg) when it is one of drain's own: 0 taken; EXIT_USAGE,
 * said on stderr; -1 for --help and --version, answered on stdout. argv[optind - 1] names an
 * option unknown or missing its argument. */
static int base_option(struct opts *o, int c, const char *arg, char **argv)
{
    double v;
    char cerr[512];
    switch (c) {
    case 'o': o->output = arg; break;
    case 'e':
        if (o->nelf == MAX_ELVES) {
            fprintf(stderr, "drain: at most %d --elf files\n", MAX_ELVES);
            return EXIT_USAGE;
        }
        o->elf_paths[o->nelf++] = arg;
        break;
    case 'f': o->force = 1; break;
    case 'b':
        if (parse_num(arg, 1, 1e8, &v) || !input_baud_ok((long)v) || v != (long)v) {
            fprintf(stderr, "drain: --baud %s: not a supported baud rate\n", arg);
            return EXIT_USAGE;
        }
        o->baud = (long)v;
        break;
    case 'F': o->follow = 1; break;
    case 'E':
        if (parse_num(arg, 0.01, 1e7, &v)) {
            fprintf(stderr, "drain: --every %s: expected seconds > 0\n", arg);
            return EXIT_USAGE;
        }
        o->every = v;
        break;
    case 'q': o->quiet = 1; break;
    case 'S': o->stats = 1; break;
    case 0x108: /* libpq loaded now (a missing one: exit 1), not after the stream is drained */
        o->push = arg;
        fleet_load_libpq();
        break;
    case 0x100: return ram_option(o, arg);
    case 0x101: o->core = arg; break;
    case 0x107:
        if (parse_duration(arg, &o->min_life) != 0) {
            fprintf(stderr, "drain: --min-lifetime %s: expected a time > 0 with a unit (ns, us, "
                            "ms, s, m, h, d), as 10us or 5ms\n", arg);
            return EXIT_USAGE;
        }
        break;
    case 'C':
        if (control_add(o->ctl, arg, cerr, sizeof(cerr)) != 0) {
            fprintf(stderr, "drain: --send %s\n", cerr);
            return EXIT_USAGE;
        }
        break;
    case 'P': control_set_file(o->ctl, arg); break;
    case 'R': o->rtt_scan = arg; break;
    case 'I': control_set_stdin(o->ctl); break;
    case 'h': print_usage(stdout); return -1;
    case 'V': printf("drain (msamp) %s, wire format v%u\n", DRAIN_VERSION, MSAMP_WIRE_VERSION); return -1;
    case ':':
        fprintf(stderr, "drain: option %s needs an argument\n", argv[optind - 1]);
        return EXIT_USAGE;
    default:
        fprintf(stderr, "drain: unknown option %s (see drain --help)\n", argv[optind - 1]);
        return EXIT_USAGE;
    }
    return 0;
}

/* After the options: one INPUT, or none with a dump (--ram, --core). 0, or EXIT_USAGE. */
static int operands(struct opts *o, int argc, char **argv)
{
    if ((o->nram || o->core) && optind != argc) {
        fprintf(stderr, "drain: an INPUT and a dump (--ram, --core): give one or the other\n");
        return EXIT_USAGE;
    }
    if (o->nram || o->core)
        return 0;
    if (optind != argc - 1) {
        fprintf(stderr, "drain: %s\n", optind >= argc ? "no input given" : "more than one input");
        print_usage(stderr);
        return EXIT_USAGE;
    }
    o->input = argv[optind];
    if (!*o->output) {
        fprintf(stderr, "drain: empty --output\n");
        return EXIT_USAGE;
    }
    return 0;
}

int parse_args(struct opts *o, int argc, char **argv)
{
    struct opt_tables t;
    opt_tables(&t);
    struct control *ctl = o->ctl;
    memset(o, 0, sizeof(*o));
    o->ctl = ctl;
    o->output = "heap.pb.gz";
    o->baud = 115200;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, t.shortopts, t.longopts, NULL)) != -1) {
        int vr = view_option(o, c, optarg);
        if (vr > 0)
            return EXIT_USAGE;
        if (vr == 0)
            continue;
        int rc = base_option(o, c, optarg, argv);
        if (rc != 0)
            return rc;
    }
    return operands(o, argc, argv);
}
