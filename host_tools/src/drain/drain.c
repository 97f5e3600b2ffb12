/*
 * drain: reads an msamp byte stream (tty, file, stdin or TCP), rebuilds each device session and
 * writes gzip-compressed pprof profiles, symbolized with --elf; prints top sites and folded stacks.
 * `drain merge` merges profiles. See docs/DRAIN.md.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "input.h"
#include "merge.h"
#include "msamp_decode.h"
#include "prof_file.h"
#include "profile.h"
#include "report.h"
#include "session.h"
#include "symbolize.h"

#define MAX_ELVES 16

static const char usage_text[] =
    "usage: drain [options] INPUT\n"
    "       drain merge OUT.pb.gz IN.pb.gz...\n"
    "Reads an msamp stream and writes a gzip-compressed pprof heap profile per device session.\n"
    "INPUT: a tty (/dev/ttyUSB0), a file, - for stdin, or tcp:HOST:PORT (QEMU -serial tcp:...)\n"
    "  -o, --output FILE    profile of the first session (default heap.pb.gz); later sessions\n"
    "                       go to STEM.sN.pb.gz, partial profiles to STEM[.sN].partK.pb.gz\n"
    "  -e, --elf FILE       symbolize with this ELF's DWARF (repeat for more images)\n"
    "  -f, --force          symbolize even when the ELF's build-id differs from the stream's\n"
    "  -b, --baud N         tty speed (default 115200)\n"
    "  -F, --follow         keep reading a regular file as it grows (stop with Ctrl-C)\n"
    "  -E, --every SECONDS  also write a numbered partial profile every SECONDS\n"
    "  -t, --top N          print the top N sites by in-use and by allocated bytes\n"
    "  -s, --folded FILE    write folded stacks (in-use bytes) for flame-graph tools\n"
    "  -q, --quiet          no status line and no summary on stderr\n"
    "      --stats          print decode and profile-writing times and peak memory at the end\n"
    "  -h, --help           this text;  -V, --version: the version\n"
    "Exit status: 0 success, 1 input/output or build-id error, 2 bad command line.\n";

struct opts {
    const char *input, *output, *folded;
    const char *elf_paths[MAX_ELVES];
    size_t nelf;
    int force, follow, quiet, stats;
    long baud, top;
    double every;
};

struct drain {
    struct opts o;
    struct elf_set elves;
    struct msamp_dec *dec;
    struct session *cur;
    int nsessions, partials, failed, written;
    int elves_checked; /* the current session's ELFs were checked against its identity */
    uint64_t bytes;
    double decode_s, write_s; /* --stats */
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

/* OUT with ".sN" and/or ".partK" inserted before its extension (".pb.gz", ".gz" or the last). */
static char *derived_name(const char *base, int session, int part)
{
    size_t n = strlen(base), stem = n;
    const char *exts[] = {".pb.gz", ".gz", ".txt", ".folded"};
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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Writes the profile (and reports) of the current session. part 0: final. */
static int write_session(struct drain *d, int part)
{
    struct session *s = d->cur;
    char kind[32], err[1024];
    if (part)
        snprintf(kind, sizeof(kind), "partial %d", part);
    else
        snprintf(kind, sizeof(kind), "final");
    struct built b;
    double t0 = now_s();
    if (build_profile(s, &d->elves, kind, msamp_dec_stats(d->dec), &b, err, sizeof(err)) != 0) {
        fprintf(stderr, "drain: %s\n", err);
        return -1;
    }
    char *path = derived_name(d->o.output, s->index, part);
    int rc = 0;
    if (prof_write_file(&b.prof, path) != 0) {
        fprintf(stderr, "drain: %s: %s\n", path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && !part) {
        if (d->o.top > 0)
            report_top(stdout, s, &b, (size_t)d->o.top, 1);
        if (d->o.folded) {
            char *fp = derived_name(d->o.folded, s->index, 0);
            if (report_folded(&b, fp) != 0) {
                fprintf(stderr, "drain: %s: %s\n", fp, strerror(errno));
                rc = -1;
            }
            free(fp);
        }
        if (!d->o.quiet)
            report_summary(stderr, s, &b, msamp_dec_stats(d->dec), path);
    }
    free(path);
    built_free(&b);
    d->write_s += now_s() - t0;
    return rc;
}

/* last: end of input; a run that received bytes always leaves a profile, even an empty one. */
static void end_session(struct drain *d, int last)
{
    int want = session_has_data(d->cur) || (last && !d->written && d->bytes > 0);
    if (want && write_session(d, 0) != 0)
        d->failed = 1;
    else if (want)
        d->written++;
    session_free(d->cur);
    d->cur = NULL;
}

static void on_record(void *arg, const struct msamp_record *rec)
{
    struct drain *d = arg;
    if (d->failed)
        return;
    if (rec->type == MSAMP_REC_SESSION && session_is_new(d->cur, rec)) {
        end_session(d, 0);
        d->cur = session_new(++d->nsessions, msamp_dec_stats(d->dec));
        d->elves_checked = 0;
    }
    session_record(d->cur, rec);
    /* A wrong --elf is reported as soon as the session's header and mappings are in, not at the
     * end of a long capture. */
    if (!d->elves_checked && d->elves.n && d->cur->have_header && rec->type >= 0 &&
        rec->type != MSAMP_REC_SESSION && rec->type != MSAMP_REC_MAPPING) {
        char err[1024];
        d->elves_checked = 1;
        if (check_elves(d->cur, &d->elves, err, sizeof(err)) != 0) {
            fprintf(stderr, "drain: %s\n", err);
            d->failed = 1;
        }
    }
}

static void status_line(struct drain *d, double rate)
{
    const struct msamp_dec_stats *st = msamp_dec_stats(d->dec);
    const struct session *s = d->cur;
    fprintf(stderr, "\rdrain: session %d  %llu samples  %.1f KB/s  drops %llu  crc errors %llu  "
                    "lost frames %llu   ",
            s->index, (unsigned long long)s->n.samples, rate / 1024.0,
            (unsigned long long)session_device_drops(s), (unsigned long long)st->frames_bad,
            (unsigned long long)st->frames_lost);
}

static int parse_num(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

static int parse_args(struct opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'}, {"elf", required_argument, 0, 'e'},
        {"force", no_argument, 0, 'f'},        {"baud", required_argument, 0, 'b'},
        {"follow", no_argument, 0, 'F'},       {"every", required_argument, 0, 'E'},
        {"top", required_argument, 0, 't'},    {"folded", required_argument, 0, 's'},
        {"quiet", no_argument, 0, 'q'},        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},      {"stats", no_argument, 0, 'S'},
        {0, 0, 0, 0}};
    memset(o, 0, sizeof(*o));
    o->output = "heap.pb.gz";
    o->baud = 115200;
    int c;
    double v;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:e:fb:FE:t:s:qhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o->output = optarg; break;
        case 'e':
            if (o->nelf == MAX_ELVES) {
                fprintf(stderr, "drain: at most %d --elf files\n", MAX_ELVES);
                return 2;
            }
            o->elf_paths[o->nelf++] = optarg;
            break;
        case 'f': o->force = 1; break;
        case 'b':
            if (parse_num(optarg, 1, 1e8, &v) || !input_baud_ok((long)v) || v != (long)v) {
                fprintf(stderr, "drain: --baud %s: not a supported baud rate\n", optarg);
                return 2;
            }
            o->baud = (long)v;
            break;
        case 'F': o->follow = 1; break;
        case 'E':
            if (parse_num(optarg, 0.01, 1e7, &v)) {
                fprintf(stderr, "drain: --every %s: expected seconds > 0\n", optarg);
                return 2;
            }
            o->every = v;
            break;
        case 't':
            if (parse_num(optarg, 1, 1e6, &v) || v != (long)v) {
                fprintf(stderr, "drain: --top %s: expected a count >= 1\n", optarg);
                return 2;
            }
            o->top = (long)v;
            break;
        case 's': o->folded = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'S': o->stats = 1; break;
        case 'h': fputs(usage_text, stdout); return -1;
        case 'V': printf("drain (msamp) %s, wire format v%u\n", DRAIN_VERSION, MSAMP_WIRE_VERSION); return -1;
        case ':':
            fprintf(stderr, "drain: option %s needs an argument\n", argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "drain: unknown option %s (see drain --help)\n", argv[optind - 1]);
            return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "drain: %s\n%s", optind >= argc ? "no input given" : "more than one input",
                usage_text);
        return 2;
    }
    o->input = argv[optind];
    if (!*o->output) {
        fprintf(stderr, "drain: empty --output\n");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return drain_merge(argc - 1, argv + 1);
    struct drain d;
    memset(&d, 0, sizeof(d));
    int rc = parse_args(&d.o, argc, argv);
    if (rc)
        return rc < 0 ? 0 : rc;

    char err[1024];
    struct sym_elf *elves[MAX_ELVES];
    for (size_t i = 0; i < d.o.nelf; i++) {
        elves[i] = sym_open(d.o.elf_paths[i], err, sizeof(err));
        if (!elves[i]) {
            fprintf(stderr, "drain: --elf %s\n", err);
            while (i-- > 0)
                sym_close(elves[i]);
            return 1;
        }
    }
    d.elves = (struct elf_set){elves, d.o.nelf, d.o.force};

    struct input in;
    if (input_open(&in, d.o.input, d.o.baud, d.o.follow, err, sizeof(err)) != 0) {
        fprintf(stderr, "drain: %s\n", err);
        for (size_t i = 0; i < d.o.nelf; i++)
            sym_close(elves[i]);
        return 1;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal; /* no SA_RESTART: a blocked read returns at once */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    d.dec = msamp_dec_new(on_record, &d);
    if (!d.dec) {
        fputs("drain: out of memory\n", stderr);
        return 3;
    }
    d.cur = session_new(++d.nsessions, msamp_dec_stats(d.dec));
    int status = isatty(2) && !d.o.quiet;
    double t0 = now_s(), next_part = t0 + d.o.every, next_status = t0 + 0.5, last_t = t0;
    uint64_t last_bytes = 0;
    size_t bufsize = 1u << 20;
    uint8_t *buf = xmalloc(bufsize);
    int io_error = 0;
    while (!stop_signal && !d.failed) {
        ssize_t n = input_read(&in, buf, bufsize, 200, err, sizeof(err));
        if (n > 0) {
            d.bytes += (uint64_t)n;
            double tf = now_s();
            msamp_dec_feed(d.dec, buf, (size_t)n);
            d.decode_s += now_s() - tf;
        } else if (n == -1) {
            break;
        } else if (n == -2) {
            fprintf(stderr, "drain: %s\n", err);
            io_error = 1;
            break;
        }
        if (!d.o.every && !status)
            continue;
        double t = now_s();
        if (d.o.every && t >= next_part) {
            next_part = t + d.o.every;
            if (session_has_data(d.cur) && write_session(&d, ++d.partials) != 0)
                d.failed = 1;
        }
        if (status && t >= next_status) {
            status_line(&d, (double)(d.bytes - last_bytes) / (t - last_t));
            last_bytes = d.bytes;
            last_t = t;
            next_status = t + 0.5;
        }
    }
    if (status)
        fputc('\n', stderr);
    if (stop_signal && !d.o.quiet)
        fprintf(stderr, "drain: %s: writing the final profile\n", strsignal(stop_signal));
    msamp_dec_finish(d.dec);
    if (!d.failed)
        end_session(&d, 1);
    else
        session_free(d.cur);
    if (d.o.stats) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        const struct msamp_dec_stats *st = msamp_dec_stats(d.dec);
        fprintf(stderr,
                "drain stats: %llu bytes, %llu records, decode+model %.3f s (%.1f MB/s), "
                "profiles %.3f s, peak RSS %ld KiB\n",
                (unsigned long long)d.bytes, (unsigned long long)st->records, d.decode_s,
                d.decode_s > 0 ? (double)d.bytes / d.decode_s / 1e6 : 0.0, d.write_s,
                ru.ru_maxrss);
    }
    msamp_dec_free(d.dec);
    input_close(&in);
    free(buf);
    for (size_t i = 0; i < d.o.nelf; i++)
        sym_close(elves[i]);
    if (d.nsessions == 1 && !d.failed && !io_error && !d.o.quiet && d.bytes == 0)
        fprintf(stderr, "drain: no data received; no profile written\n");
    return d.failed || io_error ? 1 : 0;
}
