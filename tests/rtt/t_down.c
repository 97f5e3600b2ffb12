/*
 * input_write on a gdb: input (host_tools/src/drain/input/input.c): usage: t_down PORT DOWNFILE.
 * Against fake_gdb.py's "down" mode (a target whose firmware never reads its 16-byte down-buffer):
 * 10 bytes go into the down-buffer and its WrOff (checked in the memory the fake server dumps to
 * DOWNFILE when the connection ends); 10 more do not fit: after 1 s a clear error, -2.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "input/input.h"

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    char spec[64], err[1024];
    snprintf(spec, sizeof(spec), "gdb:127.0.0.1:%s", argv[1]);
    struct input in;
    input_gdb_options(NULL, "0x20000000:0x3000");
    if (input_open(&in, spec, 0, 0, err, sizeof(err)) != 0) {
        fprintf(stderr, "FAIL: open: %s\n", err);
        return 1;
    }
    unsigned char buf[4096];
    /* Before the block is found, nothing can be sent; one read finds it. */
    ssize_t r = input_read(&in, buf, sizeof(buf), 500, err, sizeof(err));
    if (r < 0) {
        fprintf(stderr, "FAIL: read: %s\n", err);
        return 1;
    }
    if (input_write(&in, "0123456789", 10, err, sizeof(err)) != 10) {
        fprintf(stderr, "FAIL: write of 10 bytes: %s\n", err);
        return 1;
    }
    r = input_write(&in, "abcdefghij", 10, err, sizeof(err));
    if (r != -2 || !strstr(err, "down-buffer is full")) {
        fprintf(stderr, "FAIL: a write into a full down-buffer returned %zd (%s)\n", r, err);
        return 1;
    }
    printf("ok: down-buffer full: %s\n", err);
    input_close(&in);
    FILE *f = fopen(argv[2], "r");
    for (int i = 0; i < 50 && !f; i++) {
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
        f = fopen(argv[2], "r");
    }
    char line[256] = "";
    if (!f || !fgets(line, sizeof(line), f)) {
        fprintf(stderr, "FAIL: no dump of the down-buffer\n");
        return 1;
    }
    fclose(f);
    /* The first write, then as much of the second as fitted (15 bytes: one stays empty). */
    if (strncmp(line, "wroff=15 data=0123456789abcde", 29) != 0) {
        fprintf(stderr, "FAIL: the down-buffer holds: %s\n", line);
        return 1;
    }
    printf("ok: the down-buffer holds the bytes and its WrOff: %s", line);
    return 0;
}
