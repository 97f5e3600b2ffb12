#include "fake_port.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

uint64_t fake_time = 1000;
uint64_t fake_hz = 10000;
uintptr_t fake_stack[300] = {0x1000, 0x2000, 0x3000};
unsigned fake_depth = 3;
unsigned fake_ctx;
struct msamp_context fake_contexts[4];
int fake_lock_depth;
int fake_lock_errors;
int fake_transport_stalled;
size_t fake_transport_max;
long fake_transport_credit = -1;
uint8_t fake_out[1 << 22];
size_t fake_out_len;
const uint8_t *fake_build_id;
size_t fake_build_id_len;
const char *fake_device_id;

struct msamp_context *msamp_port_context(void)
{
    return &fake_contexts[fake_ctx];
}

void msamp_port_walk(const void *frame, msamp_frame_fn fn, void *arg)
{
    (void)frame;
    for (unsigned i = 0; i < fake_depth; i++)
        if (!fn(arg, fake_stack[i]))
            return;
}

msamp_port_lock_t msamp_port_lock(void)
{
    if (fake_lock_depth != 0)
        fake_lock_errors++;
    fake_lock_depth++;
    return 0x5a;
}

void msamp_port_unlock(msamp_port_lock_t token)
{
    if (fake_lock_depth != 1 || token != 0x5a)
        fake_lock_errors++;
    fake_lock_depth--;
}

uint64_t msamp_port_time(void)
{
    return fake_time;
}

uint64_t msamp_port_time_hz(void)
{
    return fake_hz;
}

size_t msamp_port_build_id(const uint8_t **id)
{
    *id = fake_build_id;
    return fake_build_id_len;
}

size_t msamp_port_device_id(const uint8_t **id)
{
    *id = (const uint8_t *)fake_device_id;
    return fake_device_id != NULL ? strlen(fake_device_id) : 0;
}

int msamp_transport_write(const uint8_t *data, size_t len)
{
    if (fake_transport_stalled)
        return 0;
    if (fake_transport_max != 0 && len > fake_transport_max)
        len = fake_transport_max;
    if (fake_transport_credit >= 0 && len > (size_t)fake_transport_credit)
        len = (size_t)fake_transport_credit;
    if (fake_transport_credit >= 0)
        fake_transport_credit -= (long)len;
    if (len > sizeof fake_out - fake_out_len)
        return -1;
    for (size_t i = 0; i < len; i++)
        fake_out[fake_out_len + i] = data[i];
    fake_out_len += len;
    return (int)len;
}

/* The "real" allocator behind the wrappers in the tests: the C library's. With fake_fail set,
 * every allocation fails (NULL); with fake_nested set, calloc and realloc work as newlib's do,
 * through the allocator's other entry points, which the tests wrap: calloc calls malloc, realloc
 * calls malloc and free (a move every time). */
int fake_fail, fake_nested;
void *__real_malloc(size_t size);
void __real_free(void *p);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void __wrap_free(void *p);
static void *fake_reuse; /* a block realloc moved from, for the next malloc it fits */
void *__real_malloc(size_t size)
{
    if (fake_fail)
        return NULL;
    if (fake_reuse != NULL && malloc_usable_size(fake_reuse) >= size) {
        void *p = fake_reuse;
        fake_reuse = NULL;
        return p;
    }
    return malloc(size);
}
void __real_free(void *p) { free(p); }
void *__real_calloc(size_t n, size_t size)
{
    if (fake_fail)
        return NULL;
    if (!fake_nested)
        return calloc(n, size);
    /* More than asked, as newlib's memalign does: the inner request may pass a giant-guard limit
     * the outer one is under. */
    void *p = __wrap_malloc(n * size + 64);
    if (p)
        memset(p, 0, n * size);
    return p;
}
void (*fake_realloc_between)(void *freed);
void *__real_realloc(void *p, size_t size)
{
    if (fake_fail && size != 0)
        return NULL;
    if (fake_realloc_between != NULL && p != NULL && size != 0) {
        /* A move, and another context runs once the old block is free (before realloc returns). */
        void *q = malloc(size);
        if (q) {
            size_t old = malloc_usable_size(p);
            memcpy(q, p, old < size ? old : size);
            /* "Freed", and the next malloc that fits is handed it (under ASan, the C library's
             * quarantine would hand out another block). */
            fake_reuse = p;
            fake_realloc_between(p);
            if (fake_reuse != NULL)
                free(fake_reuse);
            fake_reuse = NULL;
        }
        return q;
    }
    if (!fake_nested)
        return realloc(p, size);
    if (size == 0) {
        __wrap_free(p);
        return NULL;
    }
    void *q = __wrap_malloc(size);
    if (q && p) {
        size_t old = malloc_usable_size(p);
        memcpy(q, p, old < size ? old : size);
        __wrap_free(p);
    }
    return q;
}
