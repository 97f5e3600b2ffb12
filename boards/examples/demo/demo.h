/* Shared declarations of the demo firmware (boards/examples/demo/). */
#ifndef DEMO_H
#define DEMO_H

#include <stddef.h>
#include <stdint.h>

void *malloc(size_t n);
void free(void *p);
void *calloc(size_t n, size_t m);
void *realloc(void *p, size_t n);

/* msamp's seed (demo.c: DEMO_SEED, 12345 by default). A word of its own in the image, read at
 * start (volatile: never folded into the code), so a copy of the ELF with another value in the
 * file's bytes of this symbol runs another seeded sampling without a rebuild: what
 * tests/calibrate/board.sh does before each run. The console's run line prints it (seed=). */
extern const volatile uint64_t demo_seed;

/* Bytes of the heap in blocks handed out now (headers and rounding included). */
size_t demo_heap_in_use(void);
/* Bytes of the heap that block p (one malloc returned) takes, its header and rounding included. */
size_t demo_heap_block_bytes(const void *p);

/* Print "msamp-demo FAIL: why" and exit with status 1. */
_Noreturn void demo_fail(const char *why);

/* A line of console text built piece by piece (no printf in freestanding code). */
struct demo_line {
    char buf[256];
    size_t len;
};
void line_start(struct demo_line *l, const char *text);
void line_str(struct demo_line *l, const char *text);
void line_u64(struct demo_line *l, const char *key, uint64_t v);
void line_emit(struct demo_line *l);

/* The device-fault variants' hooks (tests/board/faults.sh); the default demo has none. */
#ifdef DEMO_FAULTS
#include "demo_faults.h"
#endif

#endif
