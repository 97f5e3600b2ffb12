/* msamp's hook for newlib's and newlib-nano's heap (port/newlib/msamp_newlib_heap.c,
 * docs/HEALTH.md): the firmware says where the heap _sbrk grows into ends. */
#ifndef MSAMP_NEWLIB_H
#define MSAMP_NEWLIB_H

#ifdef __cplusplus
extern "C" {
#endif

/* The end of the memory _sbrk hands out (the address past its last byte), so that the room not
 * yet taken from it counts as free and in the total. The weak default returns port/msamp.ld's
 * __msamp_heap_end (the end of RAM less __msamp_stack_reserve, unless the linker script says
 * otherwise), or NULL in a link without the fragment: unknown, and then free and total cover what
 * _sbrk has given only. A firmware whose heap ends elsewhere defines it beside its _sbrk. */
void *msamp_newlib_heap_end(void);

/* What msamp_port_heap_stats runs (named so that port/msamp.mk's -u pulls this hook out of a
 * libmsamp.a, ahead of the core's weak default). */
struct msamp_heap_stats;
void msamp_newlib_heap_stats(struct msamp_heap_stats *out);

#ifdef __cplusplus
}
#endif

#endif
