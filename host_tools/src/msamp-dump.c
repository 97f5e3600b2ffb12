/* msamp-dump: prints an msamp wire stream (docs/WIRE_FORMAT.md) as a listing, one line per frame
 * and record, in the format of tests/vectors/ *.txt. See docs/MSAMP_DUMP.md. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msamp_decode.h"

/* Exit statuses (docs/MSAMP_DUMP.md): 0 the stream was read; as cmp(1) and grep(1), 1 is the
 * answer "damaged" (--strict) and 2 trouble: a bad command line, input that cannot be opened or
 * read, output that cannot be written, out of memory. */
#define EXIT_DAMAGED 1
#define EXIT_INPUT 2

static void usage(FILE *out)
{
    fputs("usage: msamp-dump [-t] [-s] [--strict] [FILE|-]\n"
          "Prints every frame and record of an msamp stream (default: stdin) as a listing.\n"
          "  -t, --time     append the absolute time of each record as @ts=N (@ts=? if unknown)\n"
          "  -s, --stats    print the decoder's counters to stderr at the end\n"
          "  --strict       exit 1 if the stream had damage (bad, lost or cut frames, malformed\n"
          "                 records)\n"
          "  -h, --help     show this help\n"
          "Exit status: 0 ok, 1 damage with --strict, 2 bad usage, unreadable input or unwritable\n"
          "output.\n",
          out);
}

static void on_record(void *arg, const struct msamp_record *rec)
{
    const unsigned *opts = arg;
    msamp_record_print_opt(stdout, rec, *opts);
}

int main(int argc, char **argv)
{
    unsigned opts = 0;
    int stats = 0, strict = 0;
    const char *path = NULL;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-t") == 0 || strcmp(a, "--time") == 0) {
            opts |= MSAMP_PRINT_TIME;
        } else if (strcmp(a, "-s") == 0 || strcmp(a, "--stats") == 0) {
            stats = 1;
        } else if (strcmp(a, "--strict") == 0) {
            strict = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "msamp-dump: write error on stdout\n");
                return EXIT_INPUT;
            }
            return 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "msamp-dump: unknown option '%s'\n", a);
            usage(stderr);
            return EXIT_INPUT;
        } else if (path != NULL) {
            fprintf(stderr, "msamp-dump: only one input file may be given\n");
            return EXIT_INPUT;
        } else {
            path = a;
        }
    }

    FILE *in = stdin;
    const char *name = "stdin";
    if (path != NULL && strcmp(path, "-") != 0) {
        in = fopen(path, "rb");
        name = path;
        if (in == NULL) {
            fprintf(stderr, "msamp-dump: cannot open '%s': %s\n", path, strerror(errno));
            return EXIT_INPUT;
        }
    }

    struct msamp_dec *d = msamp_dec_new(on_record, &opts);
    if (d == NULL) {
        fprintf(stderr, "msamp-dump: out of memory\n");
        return EXIT_INPUT;
    }
    /* read(2), not fread: a live pipe or tty is listed as its bytes arrive. */
    static uint8_t buf[65536];
    int fd = fileno(in), read_err = 0, err_no = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            read_err = 1;
            err_no = errno;
            break;
        }
        if (n == 0)
            break;
        msamp_dec_feed(d, buf, (size_t)n);
        fflush(stdout);
    }
    msamp_dec_finish(d);
    if (in != stdin)
        fclose(in);

    int rc = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "msamp-dump: write error on stdout\n");
        rc = EXIT_INPUT;
    }
    if (read_err) {
        fprintf(stderr, "msamp-dump: read error on '%s': %s\n", name, strerror(err_no));
        rc = EXIT_INPUT;
    }
    const struct msamp_dec_stats *st = msamp_dec_stats(d);
    if (stats)
        msamp_dec_stats_print(stderr, "msamp-dump: ", st);
    if (rc == 0 && strict && msamp_dec_stats_damaged(st)) {
        fprintf(stderr, "msamp-dump: the stream was damaged (--strict)\n");
        rc = EXIT_DAMAGED;
    }
    msamp_dec_free(d);
    return rc;
}
