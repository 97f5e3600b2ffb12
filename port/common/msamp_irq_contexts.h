/* Sampler contexts by interrupt nesting depth, for single-core bare-metal ports whose interrupt
 * entry code calls msamp_irq_enter() and msamp_irq_exit() (with interrupts masked) around its
 * handler: thread mode has context 0 and each nesting level its own, up to MSAMP_IRQ_LEVELS
 * (deeper levels share the last). msamp_irq_contexts.c is such a port's msamp_port_context().
 * Used by the aarch64, riscv64 and x86_64 ports. */
#ifndef MSAMP_IRQ_CONTEXTS_H
#define MSAMP_IRQ_CONTEXTS_H

#include "msamp_port.h"

#ifndef MSAMP_IRQ_LEVELS
#define MSAMP_IRQ_LEVELS 1
#endif

void msamp_irq_enter(void);
void msamp_irq_exit(void);

#endif
