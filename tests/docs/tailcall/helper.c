/* test docs-tail-call: an application's allocation helper that ends in `return malloc(n);` (a
 * tail call at -O2 unless -fno-optimize-sibling-calls), and a pool whose own file also calls it
 * (pool_refill: a call --wrap never sees). */
#include <stddef.h>
#include <stdlib.h>

void *make_buf(size_t n);
void *pool_alloc(size_t n);
void pool_free(void *p);
void pool_refill(unsigned n);

void *make_buf(size_t n)
{
    return malloc(n);
}

/* The pool: fixed 64-byte blocks from a static arena, a free list. */
static _Alignas(16) unsigned char arena[4096][64];
static void *free_list;
static size_t used;
static void *kept[4096];
static unsigned nkept;

void *pool_alloc(size_t n)
{
    if (n == 0 || n > 64)
        return NULL;
    if (free_list != NULL) {
        void *p = free_list;
        free_list = *(void **)p;
        return p;
    }
    return used < 4096 ? arena[used++] : NULL;
}

void pool_free(void *p)
{
    if (p == NULL)
        return;
    *(void **)p = free_list;
    free_list = p;
}

/* Calls from the pool's own file: bound by the compiler, never through __wrap_pool_alloc. */
void pool_refill(unsigned n)
{
    for (unsigned i = 0; i < n && nkept < 4096; i++)
        kept[nkept++] = pool_alloc(48);
}
