/* Shared by the wrapper files: the application sees exactly what the real allocator returns (same
 * pointers, same NULLs, same errno: the wrappers never touch it). */
#ifndef MSAMP_WRAP_H
#define MSAMP_WRAP_H

#include "../msamp_internal.h"

/* The frame address of the wrapper: the walk starts at the wrapper's caller. */
#define MSAMP_FRAME() __builtin_frame_address(0)

#define MSAMP_ENOMEM 12 /* ENOMEM on every platform msamp supports (freestanding has no errno.h) */

#if MSAMP_CFG_GIANT_BYTES
/* The giant-allocation guard: refuse before the allocator sees the request. */
#define MSAMP_REFUSE_GIANT(size, fail)                                                             \
    do {                                                                                           \
        if (MSAMP_UNLIKELY((size) >= (size_t)MSAMP_CFG_GIANT_BYTES)) {                             \
            msamp_port_refused(size);                                                              \
            return fail;                                                                           \
        }                                                                                          \
    } while (0)
#else
#define MSAMP_REFUSE_GIANT(size, fail) ((void)0)
#endif

#endif
