/* Weak defaults of the port's optional hooks (msamp_port.h), shared by both profiles of the core.
 * A port overrides any of them by defining it in an object the link pulls in anyway (the one with
 * its lock or its clock): a strong definition alone in an archive member would lose to these. */
#include "msamp_internal.h"

MSAMP_WEAK uint64_t msamp_port_entropy(void)
{
    return msamp_port_time();
}

MSAMP_WEAK size_t msamp_port_device_id(const uint8_t **id)
{
    (void)id;
    return 0;
}

MSAMP_WEAK int msamp_transport_init(void)
{
    return 0;
}

MSAMP_WEAK int msamp_transport_flush(void)
{
    return 0;
}

MSAMP_WEAK int msamp_transport_read(uint8_t *buf, size_t max)
{
    (void)buf;
    (void)max;
    return 0;
}

MSAMP_WEAK void msamp_port_refused(size_t size)
{
    (void)size;
}

MSAMP_WEAK void msamp_port_ring_notify(uint32_t used, uint32_t size)
{
    (void)used;
    (void)size;
}

MSAMP_WEAK void msamp_port_context_registered(struct msamp_context *c)
{
    (void)c;
}

MSAMP_WEAK size_t msamp_port_mappings(struct msamp_mapping *out, size_t max)
{
    (void)out;
    (void)max;
    return 0;
}

#if MSAMP_CFG_HEAP_STATS
MSAMP_WEAK void msamp_port_heap_stats(struct msamp_heap_stats *out)
{
    out->valid = 0;
}
#endif

MSAMP_WEAK uint32_t msamp_port_tasks(void)
{
    return 0;
}

MSAMP_WEAK const char *msamp_port_task_name(uint32_t id)
{
    (void)id;
    return NULL;
}

#if MSAMP_CFG_RUNTIME_TABLES
MSAMP_WEAK void msamp_port_table_caps(uint32_t *live, uint32_t *stacks, uint32_t *frames)
{
    (void)live;
    (void)stacks;
    (void)frames;
}

MSAMP_WEAK void *msamp_port_table_memory(size_t bytes)
{
    (void)bytes;
    return NULL;
}
#endif
