/* test docs-tail-call: the program. use_helper allocates through make_buf (helper.c), use_pool
 * through pool_alloc from this file (wrapped), and pool_refill from the pool's own file (not). It
 * prints how many of each it made: helper=N pool_other_file=N pool_same_file=N. */
#include <stdio.h>
#include <stdlib.h>

#include "msamp.h"

MSAMP_WRAP_ALLOCATOR(pool_alloc, pool_free)

void *make_buf(size_t n);
void *pool_alloc(size_t n);
void pool_free(void *p);
void pool_refill(unsigned n);

void *sink[1000]; /* external: the stores stay (use_helper is no tail call itself) */

__attribute__((noinline)) static void use_helper(unsigned i)
{
    sink[i % 1000] = make_buf(100);
}

__attribute__((noinline)) static void use_pool(unsigned i)
{
    void *p = pool_alloc(32);
    if (i % 2 == 0)
        pool_free(p);
}

int main(void)
{
    for (unsigned i = 0; i < 500; i++) {
        use_helper(i);
        use_pool(i);
    }
    pool_refill(300);
    printf("helper=500 pool_other_file=500 pool_same_file=300\n");
    return 0;
}
