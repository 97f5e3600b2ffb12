/* The baseline wrapper for `make bench`: --wrap of the same entry points as msamp, that only counts
 * calls. Whatever msamp costs beyond this is msamp's own. */
#include <stddef.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);

unsigned long bare_wrap_calls;

void *__wrap_malloc(size_t size)
{
    bare_wrap_calls++;
    return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    bare_wrap_calls++;
    return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    bare_wrap_calls++;
    return __real_realloc(p, size);
}

void __wrap_free(void *p)
{
    bare_wrap_calls++;
    __real_free(p);
}
