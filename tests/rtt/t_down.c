/*
 * input_write on a gdb: input (host_tools/src/drain/input/input.c): usage: t_down PORT DOWNFILE,
 * or t_down PORT BLOCKFILE STREAM.
 * Against fake_gdb.py's "down" mode (a target whose firmware never reads its 16-byte down-buffer):
 * 10 bytes go into the down-buffer and its WrOff (checked in the memory the fake server dumps to
 * DOWNFILE when the connection ends); 10 more do not fit: after 1 s a clear error, -2.
 * Against its "block" mode (a firmware whose up-writes block, reading its down-buffer only when
 * all it made went out): 200 bytes written, 15 at a time, while its up-buffer fills; the write
 * reads the up-channel as it waits, so the firmware goes on to its commands and takes all 200
 * (BLOCKFILE: what it read); the stream read after is STREAM's bytes, in order, none lost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "input/input.h"

/* The file's text once its writer has renamed it into place (up to 5 s), into line. */
static int dump_line(const char *path, char *line, size_t len)
{
    FILE *f = fopen(path, "r");
    for (int i = 0; i < 50 && !f; i++) {
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
        f = fopen(path, "r");
    }
    line[0] = '\0';
    int ok = f && fgets(line, (int)len, f);
    if (f)
        fclose(f);
    return ok;
}

static int blocked_firmware(struct input *in, const char *blockfile, const char *stream)
{
    FILE *f = fopen(stream, "rb");
    static unsigned char want[1 << 20], got[1 << 20];
    size_t nwant = f ? fread(want, 1, sizeof(want), f) : 0, ngot = 0;
    if (f)
        fclose(f);
    char err[1024], hex[512], line[600];
    unsigned char cmd[200];
    for (size_t i = 0; i < sizeof(cmd); i++) {
        cmd[i] = (unsigned char)(i * 7 + 3);
        snprintf(hex + 2 * i, 3, "%02x", cmd[i]);
    }
    ssize_t r = input_read(in, got, sizeof(got), 500, err, sizeof(err)); /* finds the block */
    ngot += r > 0 ? (size_t)r : 0;
    r = input_write(in, cmd, sizeof(cmd), err, sizeof(err));
    if (r != (ssize_t)sizeof(cmd)) {
        fprintf(stderr, "FAIL: block: a write of 200 bytes to a blocked firmware returned %zd (%s)\n",
                r, err);
        return 1;
    }
    while ((r = input_read(in, got + ngot, sizeof(got) - ngot, 2000, err, sizeof(err))) >= 0)
        ngot += (size_t)r;
    if (r != -1 || ngot != nwant || memcmp(got, want, nwant) != 0) {
        fprintf(stderr, "FAIL: block: the stream read %zu of %zu bytes (%s, end %zd)\n", ngot,
                nwant, ngot == nwant ? "differing" : "not all", r);
        return 1;
    }
    input_close(in);
    if (!dump_line(blockfile, line, sizeof(line)) || strncmp(line, hex, 2 * sizeof(cmd)) != 0 ||
        line[2 * sizeof(cmd)] != '\n') {
        fprintf(stderr, "FAIL: block: the firmware read: %s\n", line);
        return 1;
    }
    printf("ok: block: 200 bytes taken by a firmware whose up-writes block, the stream (%zu "
           "bytes) intact\n", ngot);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4)
        return 2;
    char spec[64], err[1024];
    snprintf(spec, sizeof(spec), "gdb:127.0.0.1:%s", argv[1]);
    struct input in;
    input_gdb_options(NULL, "0x20000000:0x3000");
    if (input_open(&in, spec, 0, 0, err, sizeof(err)) != 0) {
        fprintf(stderr, "FAIL: open: %s\n", err);
        return 1;
    }
    if (argc == 4)
        return blocked_firmware(&in, argv[2], argv[3]);
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
    char line[256];
    if (!dump_line(argv[2], line, sizeof(line))) {
        fprintf(stderr, "FAIL: no dump of the down-buffer\n");
        return 1;
    }
    /* The first write, then as much of the second as fitted (15 bytes: one stays empty). */
    if (strncmp(line, "wroff=15 data=0123456789abcde", 29) != 0) {
        fprintf(stderr, "FAIL: the down-buffer holds: %s\n", line);
        return 1;
    }
    printf("ok: the down-buffer holds the bytes and its WrOff: %s", line);
    return 0;
}
