/* The out-of-tree firmware's application (test docs-firmware-outoftree): the do_work() that the
 * README's snippet (main.c) calls. Each call allocates at two sites:
 *   keep_message  up to 200 blocks of 200 B kept, the oldest freed: the live set
 *   scratch       a buffer of 512 B freed at once */
#include <stddef.h>

void *malloc(size_t n);
void free(void *p);

void do_work(void);

#define KEEP_MAX 200
static void *kept[KEEP_MAX];
static unsigned next_kept;
static volatile unsigned char sink;

__attribute__((noinline)) static void keep_message(void)
{
    unsigned char *m = malloc(200);
    if (m == NULL)
        return;
    m[0] = (unsigned char)next_kept;
    free(kept[next_kept]);
    kept[next_kept] = m;
    next_kept = (next_kept + 1) % KEEP_MAX;
}

__attribute__((noinline)) static void scratch(void)
{
    unsigned char *b = malloc(512);
    if (b == NULL)
        return;
    b[0] = 1;
    sink = b[0];
    free(b);
}

void do_work(void)
{
    keep_message();
    scratch();
    for (volatile unsigned i = 0; i < 2000; i++) {
    }
}
