/*
 * The demo's device-fault variants (tests/board/faults.sh), included by demo.h when DEMO_FAULTS
 * is defined; the default demo never sees this file. The hooks are macros over the calls demo.c
 * already makes, so demo.c's code and line numbers stay those of the default demo.
 *
 * DEMO_FAULTS=1 (demo-faults-reset): the boot line only. msamp_init() is followed by
 *   "msamp-demo boot session=0x........ boots=N" on the console, so a test that resets the board
 *   knows each boot's session id and count (board_boot_count()). With DEMO_NO_ENTROPY=1
 *   (demo-faults-boots) the board's clock gives the session id nothing (board_entropy_clock()
 *   returns 0): a device without entropy, told apart from its previous boot by its boot count.
 * DEMO_FAULTS=2 (demo-faults-tables): also
 *   - every block the demo allocates, reallocates or frees is kept in a registry (address, size,
 *     site) outside the heap and outside msamp;
 *   - the interval is pinned (no adaptation: a full live-table bucket refuses samples, a full stack
 *     table reports MSAMP_WIRE_STACK_FULL);
 *   - the timer interrupt also allocates and frees a scratch block (site isr_scratch), and counts
 *     the ticks that interrupted the main context between entering and leaving the allocator
 *     (isr_in_alloc: inside msamp's wrappers, the sampling slow path, the stack walk);
 *   - at the end (the demo's msamp_flush()), with the timer stopped, a full snapshot pass is sent
 *     and the firmware checks msamp's live table (the msamp_heapdump block) against the registry:
 *     every in-use slot is a block the demo holds, with the size it asked for, no address twice,
 *     and the count equals msamp_get_stats().live_used. It prints one "msamp-demo faults" line
 *     with the counts and one "msamp-demo faults-site" line per site (live-table entries by
 *     site; entries whose stack is MSAMP_WIRE_STACK_FULL counted apart), and fails on a mismatch.
 */
#ifndef DEMO_FAULTS_H
#define DEMO_FAULTS_H

#include <stddef.h>
#include <stdint.h>

#include "msamp.h"

int demo_faults_init(const struct msamp_config *cfg);
int demo_faults_flush(void);
int demo_faults_timer_start(uint32_t period_us, void (*fn)(void));

#if DEMO_FAULTS >= 2
void demo_faults_enter(void);
void demo_faults_leave(void);
void *demo_faults_add(void *p, size_t n, const char *site);
void *demo_faults_del(void *p);
void *demo_faults_realloc_begin(void *old);
void *demo_faults_realloc_done(void *p, size_t n, const char *site);
#endif

#ifndef DEMO_FAULTS_IMPL
#if DEMO_FAULTS >= 2
/* The allocator calls stay in the site's own function (no extra frame in the recorded stack);
 * the registry is updated around them. The parenthesised names call the real functions. */
#define malloc(n) demo_faults_add((demo_faults_enter(), (malloc)(n)), (n), __func__)
#define free(p) ((free)(demo_faults_del(p)), demo_faults_leave())
#define realloc(p, n) demo_faults_realloc_done((realloc)(demo_faults_realloc_begin(p), (n)), (n), __func__)
#endif

#define msamp_init(cfg) demo_faults_init(cfg)
#define msamp_flush() demo_faults_flush()
#define board_timer_start(us, fn) demo_faults_timer_start((us), (fn))
#endif

#endif
