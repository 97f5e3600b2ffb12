/*
 * Template port: copy this file to port/<arch>/, fill in each function, and delete the #error.
 * Each stub says what the core expects; include/msamp_port.h is the contract. List the port's
 * sources in port/<arch>/port.mk (msamp_port_<arch>, msamp_semihosting_<arch>; see
 * port/x86_64/port.mk), with what it takes from port/common/.
 */
#include "msamp_port.h"

#error "port/template is a checklist to copy, not a port to build"

/* 1. One sampler context per thing that can allocate concurrently: per thread when hosted; on bare
 *    metal one for thread mode and one per interrupt priority level that allocates. Zeroed.
 *    (port/common/msamp_irq_contexts.c is this function for boards whose interrupt entry counts
 *    its nesting.) */
static struct msamp_context contexts[2];

struct msamp_context *msamp_port_context(void)
{
    /* Return &contexts[1] when running in an interrupt handler (read the CPU's mode/IPSR/...). */
    return &contexts[0];
}

/* 2. The frame walk. Start from the wrapper's frame record (frame), report each return address
 *    through fn until fn returns 0 or the chain ends. Check every load before making it: aligned,
 *    within this context's stack bounds, each next frame strictly above the previous one. Stop at
 *    a zero or implausible return address. Never fault. Code that keeps frame records needs no
 *    walker of its own: port/common/msamp_frame_walk.c is this function, given the records'
 *    layout in the port's msamp_frame_layout.h (see port/common/msamp_frame_walk.h). */
void msamp_port_walk(const void *frame, msamp_frame_fn fn, void *arg)
{
    (void)frame;
    (void)fn;
    (void)arg;
}

/* 3. A critical section excluding every other context that enters the core (IRQ mask on a single
 *    core, a spinlock with IRQs masked on SMP, a mutex when hosted). Works before msamp_init(). */
msamp_port_lock_t msamp_port_lock(void)
{
    return 0;
}

void msamp_port_unlock(msamp_port_lock_t token)
{
    (void)token;
}

/* 4. A monotonic clock and its rate (Hz, nonzero). */
uint64_t msamp_port_time(void)
{
    return 0;
}

uint64_t msamp_port_time_hz(void)
{
    return 1;
}

/* 5. A transport (usually its own unit in port/transport/): take up to len bytes, return how many
 *    were taken, 0 when busy, negative on a permanent failure. Called only from msamp_poll(). */
int msamp_transport_write(const uint8_t *data, size_t len)
{
    (void)data;
    return (int)len;
}

/* The firmware's GNU build-id, so that drain can tell a wrong ELF. Bare-metal ports link
 * port/common/msamp_build_id.c (a note between __msamp_build_id_start and _end in the linker
 * script) instead of this stub. */
size_t msamp_port_build_id(const uint8_t **id)
{
    (void)id;
    return 0;
}

/* Optional, weak in the core: msamp_port_entropy(), msamp_port_mappings(), msamp_port_refused(),
 * msamp_port_ring_notify(), msamp_port_context_registered(). */
