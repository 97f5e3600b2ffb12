/*
 * The "app.c" of the docs' hosted examples (README "In a hosted Linux program", docs/HOSTED.md,
 * drain's examples): a small program that knows nothing of msamp. Three allocation sites, each
 * reached through a chain of calls, so a profile shows whether stacks are whole (frame pointers)
 * or one frame deep:
 *   load_records  <- load_config <- main   about 8 MB kept until exit (in use at the end)
 *   scratch_copy  <- handle_request <- main  about 80 MB in 4 KiB buffers freed at once
 *   grow_index    <- build_index <- main   a buffer grown by realloc to 1 MiB, then freed
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORDS 2000
#define RECORD_BYTES 4000
#define REQUESTS 20000
#define SCRATCH_BYTES 4096

static void *records[RECORDS];
static volatile unsigned char sink;

static void *must(void *p)
{
    if (p == NULL) {
        perror("app");
        exit(1);
    }
    return p;
}

__attribute__((noinline)) static void *load_records(int i)
{
    unsigned char *p = must(malloc(RECORD_BYTES));
    memset(p, i, RECORD_BYTES);
    return p;
}

__attribute__((noinline)) static void load_config(void)
{
    for (int i = 0; i < RECORDS; i++)
        records[i] = load_records(i);
    sink = ((unsigned char *)records[RECORDS - 1])[0];
}

__attribute__((noinline)) static void scratch_copy(int i)
{
    unsigned char *p = must(malloc(SCRATCH_BYTES));
    memset(p, i, SCRATCH_BYTES);
    sink = p[i % SCRATCH_BYTES];
    free(p);
}

__attribute__((noinline)) static void handle_request(int i)
{
    scratch_copy(i);
    sink = (unsigned char)i;
}

__attribute__((noinline)) static void grow_index(void)
{
    unsigned char *p = NULL;
    for (size_t n = 1024; n <= 1024 * 1024; n *= 2) {
        p = must(realloc(p, n));
        p[n - 1] = (unsigned char)n;
    }
    sink = p[0];
    free(p);
}

__attribute__((noinline)) static void build_index(void)
{
    for (int i = 0; i < 16; i++)
        grow_index();
}

int main(void)
{
    load_config();
    for (int i = 0; i < REQUESTS; i++)
        handle_request(i);
    build_index();
    printf("app: %d records loaded, %d requests handled\n", RECORDS, REQUESTS);
    return 0;
}
