/* A hosted program whose allocations are reached through a shared library (libframes_lib.c, as
 * liblf.so): main -> lf_walk -> lf_inner -> keep (this program) -> malloc, and main -> lf_direct
 * -> keep. tests/drain/t_libframes.sh runs it as several processes (ASLR: the library at another
 * address each time). Arguments: the count of each path's allocations. Blocks are kept (in use at
 * the end): keep's 96 bytes a call. */
#include <stdio.h>
#include <stdlib.h>

typedef void (*lf_cb)(size_t n);
void lf_walk(lf_cb cb, size_t count, size_t n);
void lf_direct(lf_cb cb, size_t count, size_t n);

static void **kept;
static size_t nkept;

__attribute__((noinline)) static void keep(size_t n)
{
    void *p = malloc(n);
    if (!p)
        abort();
    kept[nkept++] = p;
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    size_t walk = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;
    size_t direct = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
    kept = calloc(walk + direct, sizeof(*kept));
    if (!kept)
        return 1;
    lf_walk(keep, walk, 96);
    lf_direct(keep, direct, 96);
    printf("%zu %zu\n", walk, direct);
    return 0;
}
