#include "msamp_irq_contexts.h"

static struct msamp_context contexts[1 + MSAMP_IRQ_LEVELS];
/* Written only with interrupts masked (in the entry and exit), read by the context it describes. */
static volatile unsigned depth;

void msamp_irq_enter(void)
{
    depth = depth + 1u;
}

void msamp_irq_exit(void)
{
    if (depth > 0)
        depth = depth - 1u;
}

/* The caller's context: the port's msamp_port_context(). */
struct msamp_context *msamp_port_context(void)
{
    unsigned d = depth;
    return &contexts[d < MSAMP_IRQ_LEVELS ? d : MSAMP_IRQ_LEVELS];
}
