/*
 * Where samples are counted (model/sites.c), for the files of the session's model: the STACK,
 * TASK and FAIL records, the sites' side tables made at the first use, and the site of a sample
 * (its fast path inline: the per-record path takes it for every sample).
 */
#ifndef DRAIN_SITES_H
#define DRAIN_SITES_H

#include <stdint.h>

#include "model/session.h"
#include "msamp_decode.h"
#include "util.h"

/* STACK, TASK and FAIL records. */
void sites_on_stack(struct session *s, const struct msamp_record *r);
void sites_on_task(struct session *s, const struct msamp_record *r);
void sites_on_fail(struct session *s, const struct msamp_record *r);
/* A site's rare totals, made (zeroed) at the first use. */
struct site_rare *sites_rare(struct session *s, uint32_t site);
/* The site of a stack id the cache does not hold (a new or a redefined id), and a task's own site
 * of the stack of site base (made at its first sample). */
uint32_t sites_stack_new(struct session *s, uint64_t stack_id);
uint32_t sites_task_site(struct session *s, uint32_t base, uint32_t task);

/* A site's task chain (base and next_task UINT32_MAX when it is in none). */
static inline const struct site_link *link_of(const struct session *s, uint32_t site)
{
    static const struct site_link no_link = {UINT32_MAX, UINT32_MAX};
    uint32_t i = umap_get(&s->link_index, site);
    return i < s->nlink ? &s->link[i] : &no_link;
}

static inline uint32_t stack_site_of(struct session *s, uint64_t stack_id)
{
    uint32_t i = umap_get(&s->site_index, stack_id);
    return i < s->nsites ? i : sites_stack_new(s, stack_id);
}

/* The site of a sample: its stack id's, and on an RTOS device (a SAMPLE_TASK before it) the
 * task's own site of that stack, chained to the stack's task-less one (which follows the id's
 * definitions): the same stack in two tasks makes two sites, and every total splits by task. */
static inline uint32_t site_of(struct session *s, uint64_t stack_id)
{
    uint32_t task = s->sample_task;
    s->sample_task = 0;
    uint32_t base = stack_site_of(s, stack_id);
    return task == 0 ? base : sites_task_site(s, base, task);
}

#endif
