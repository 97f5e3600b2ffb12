/* What msamp adds to a firmware (make size): this program is linked twice by boards/boards.mk,
 * with msamp (-DWITH_MSAMP: the allocator wrapped, msamp_init (which brings up the transport) and
 * msamp_poll called) and without (the same allocator calls, unwrapped); the difference of the two
 * images is msamp's share, as the linker lays it out (merged unwind entries, helpers of libgcc). */
#include <stddef.h>
#include <stdint.h>

#ifdef WITH_MSAMP
#include "msamp.h"
#include "msamp_transport.h"
#endif

void *malloc(size_t size);
void free(void *p);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t size);
void probe_main(void);

volatile uintptr_t probe_sink;

#if defined(__ARM_EABI__) && !defined(WITH_MSAMP)
/* Code built with unwind tables names these personality routines; with msamp its port has stubs
 * of them (port/arm/msamp_arm_pr_stubs.c), without it the probe does, so that neither image pulls
 * libgcc's unwinder. */
void __aeabi_unwind_cpp_pr0(void);
void __aeabi_unwind_cpp_pr1(void);
void __aeabi_unwind_cpp_pr0(void)
{
}
void __aeabi_unwind_cpp_pr1(void)
{
}
#endif

void probe_main(void)
{
#ifdef WITH_MSAMP
    (void)msamp_init(NULL);
#endif
    void *p = malloc(probe_sink);
    p = realloc(p, probe_sink);
    free(p);
    p = calloc(probe_sink, 2);
    probe_sink = (uintptr_t)p;
    free(p);
#ifdef WITH_MSAMP
    (void)msamp_poll();
#endif
}
