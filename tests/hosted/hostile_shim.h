/* The recording allocator of tests/hosted/hostile_shim.c, as tests/hosted/hostile_app.c sees it. */
#ifndef HOSTILE_SHIM_H
#define HOSTILE_SHIM_H

#include <stddef.h>
#include <stdint.h>

enum shim_fn { SHIM_MALLOC = 1, SHIM_FREE, SHIM_CALLOC, SHIM_REALLOC, SHIM_POSIX_MEMALIGN,
               SHIM_ALIGNED_ALLOC, SHIM_MEMALIGN };

/* One call the allocator received while shim_recording was set. */
struct shim_call {
    enum shim_fn fn;
    uintptr_t arg[3]; /* the arguments, in order */
    uintptr_t ret;    /* the pointer returned (posix_memalign: its result code) */
    uintptr_t out;    /* posix_memalign: the pointer stored, on success */
    int err;          /* errno when it returned */
};

#define SHIM_LOG_MAX 8
extern volatile int shim_recording;
extern struct shim_call shim_log[SHIM_LOG_MAX];
extern volatile unsigned shim_log_count;
extern unsigned long shim_double_frees, shim_foreign_frees;

/* 1 when p is a live block of this allocator (its requested size and whether one of the program's
 * own, recorded calls allocated it), else 0. */
int shim_live(const void *p, size_t *size, int *app);
/* The live blocks the program's own calls allocated: fills up to max, returns how many there are. */
size_t shim_app_live(void **out, size_t *sizes, size_t max);

#endif
