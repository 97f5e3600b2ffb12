/*
 * The cost of the wrappers' nesting guard (MSAMP_CFG_WRAP_NESTED), counted in instructions under
 * QEMU by tests/newlib/bench_nested.sh (one instruction per translation block, the execution trace
 * between bench_begin and bench_end): 64 malloc(64)+free pairs, then 64 calloc(1, 64)+free pairs,
 * through Debian's newlib-nano with the wrap set and level of the build (tests/newlib/newlib.mk),
 * sampling disabled (the path of nearly every allocation: the guard and the countdown).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "board_api.h"
#include "msamp.h"

int main(void);
void *_sbrk(ptrdiff_t incr);
__attribute__((noinline)) void bench_begin(int region);
__attribute__((noinline)) void bench_end(int region);

static unsigned char arena[16 * 1024] __attribute__((aligned(8)));
static size_t arena_used;

void *_sbrk(ptrdiff_t incr)
{
    if (incr < 0 || (size_t)incr > sizeof arena - arena_used)
        return (void *)-1;
    void *p = arena + arena_used;
    arena_used += (size_t)incr;
    return p;
}

static volatile int sink;

void bench_begin(int region)
{
    sink = region;
}

void bench_end(int region)
{
    sink = region;
}

static void fail(const char *why)
{
    board_console("msamp-bench FAIL: ");
    board_console(why);
    board_console("\n");
    board_exit(1);
}

int main(void)
{
    board_init();
    struct msamp_config cfg = {.interval = 1};
    if (msamp_init(&cfg) != 0 || msamp_disable() != 0)
        fail("msamp_init");
    void *volatile p;
    /* One pair first: newlib's first call takes the heap from _sbrk. */
    p = malloc(64);
    free(p);
    for (int i = 0; i < 64; i++) {
        bench_begin(0);
        p = malloc(64);
        free(p);
        bench_end(0);
    }
    for (int i = 0; i < 64; i++) {
        bench_begin(1);
        p = calloc(1, 64);
        free(p);
        bench_end(1);
    }
    if (p == NULL)
        fail("no memory");
    board_console("msamp-bench done\n");
    board_exit(0);
}
