/*
 * What the application sees from the allocator: return values, errno, alignment and contents for
 * the edge cases of every wrapped entry point. The test builds this program twice, with and
 * without msamp (MSAMP_INTERVAL=1: every allocation takes the sampled path), and requires the two
 * outputs to be identical. The output holds no addresses. Exit 1 if a result breaks the C or POSIX
 * contract on its own (wrong alignment, lost contents).
 */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A failed realloc leaves the block valid; gcc 12 cannot know the call below fails. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic ignored "-Wuse-after-free"
#endif

static int failures;

/* Opaque to the optimizer, so no call below is folded or removed. */
static size_t (*volatile ident)(size_t) = NULL;
static size_t ident_fn(size_t x)
{
    return x;
}
#define V(x) ident((size_t)(x))

static void expect(int ok, const char *what)
{
    if (!ok) {
        printf("CONTRACT BROKEN: %s\n", what);
        failures++;
    }
}

static void show(const char *what, const void *p, int err)
{
    printf("%-44s %s errno=%s\n", what, p != NULL ? "non-NULL" : "NULL",
           err == 0 ? "0" : err == ENOMEM ? "ENOMEM" : err == EINVAL ? "EINVAL" : "other");
}

static void show_rc(const char *what, int rc, const void *p, int err)
{
    printf("%-44s rc=%s out=%s errno=%s\n", what,
           rc == 0 ? "0" : rc == ENOMEM ? "ENOMEM" : rc == EINVAL ? "EINVAL" : "other",
           p == NULL ? "NULL" : p == (void *)&failures ? "untouched" : "set",
           err == 0 ? "0" : err == 1234 ? "1234 (kept)" : "changed");
}

static int aligned(const void *p, size_t a)
{
    return ((uintptr_t)p & (a - 1)) == 0;
}

int main(void)
{
    void *p, *q;
    int rc;
    unsigned char *b;

    ident = ident_fn;

    /* malloc */
    errno = 0;
    p = malloc(V(0));
    show("malloc(0)", p, errno);
    free(p);
    errno = 0;
    p = malloc(V(SIZE_MAX));
    show("malloc(SIZE_MAX)", p, errno);
    errno = 0;
    p = malloc(V(PTRDIFF_MAX) + 1);
    show("malloc(PTRDIFF_MAX + 1)", p, errno);
    errno = 1234;
    p = malloc(V(100));
    printf("%-44s errno=%d\n", "malloc(100) keeps errno", errno);
    expect(aligned(p, _Alignof(max_align_t)), "malloc alignment");
    memset(p, 0xa5, 100);
    free(p);

    /* calloc */
    errno = 0;
    p = calloc(V(SIZE_MAX / 2), V(4));
    show("calloc(SIZE_MAX/2, 4) overflow", p, errno);
    errno = 0;
    p = calloc(V(4), V(SIZE_MAX / 2));
    show("calloc(4, SIZE_MAX/2) overflow", p, errno);
    errno = 0;
    p = calloc(V(0), V(10));
    show("calloc(0, 10)", p, errno);
    free(p);
    errno = 0;
    b = calloc(V(1000), V(8));
    show("calloc(1000, 8)", b, errno);
    for (size_t i = 0; b != NULL && i < 8000; i++)
        expect(b[i] == 0, "calloc zeroes");
    free(b);

    /* realloc */
    errno = 0;
    b = realloc(NULL, V(100));
    show("realloc(NULL, 100)", b, errno);
    for (int i = 0; i < 100; i++)
        b[i] = (unsigned char)i;
    b = realloc(b, V(100000));
    show("realloc(p, 100000) grows", b, errno);
    for (int i = 0; i < 100; i++)
        expect(b[i] == (unsigned char)i, "realloc keeps contents");
    errno = 0;
    q = realloc(b, V(SIZE_MAX - 4096));
    show("realloc(p, huge) fails", q, errno);
    expect(q == NULL && b[99] == 99, "failed realloc keeps the block");
    b = realloc(b, V(10));
    expect(b != NULL && b[9] == 9, "realloc shrink keeps contents");
    errno = 0;
    q = realloc(b, V(0));
    show("realloc(p, 0)", q, errno);
    free(q);
    errno = 0;
    free(NULL);
    printf("%-44s errno=%d\n", "free(NULL)", errno);

    /* posix_memalign: returns the error, leaves errno and (on failure) *out alone */
    p = &failures;
    errno = 1234;
    rc = posix_memalign(&p, V(4096), V(100));
    show_rc("posix_memalign(4096, 100)", rc, p, errno);
    expect(rc != 0 || aligned(p, 4096), "posix_memalign alignment");
    if (rc == 0)
        free(p);
    p = &failures;
    errno = 1234;
    rc = posix_memalign(&p, V(3), V(100));
    show_rc("posix_memalign(3, 100) bad alignment", rc, p, errno);
    p = &failures;
    errno = 1234;
    rc = posix_memalign(&p, V(sizeof(void *) / 2), V(100));
    show_rc("posix_memalign(sizeof(void*)/2, 100)", rc, p, errno);
    p = &failures;
    errno = 1234;
    rc = posix_memalign(&p, V(64), V(SIZE_MAX - 4096));
    show_rc("posix_memalign(64, huge)", rc, p, errno);
    p = &failures;
    errno = 1234;
    rc = posix_memalign(&p, V(64), V(0));
    show_rc("posix_memalign(64, 0)", rc, p, errno);
    if (rc == 0)
        free(p);

    /* aligned_alloc and memalign */
    errno = 0;
    p = aligned_alloc(V(256), V(1024));
    show("aligned_alloc(256, 1024)", p, errno);
    expect(p == NULL || aligned(p, 256), "aligned_alloc alignment");
    free(p);
    errno = 0;
    p = aligned_alloc(V(3), V(64));
    show("aligned_alloc(3, 64) bad alignment", p, errno);
    free(p);
    errno = 0;
    p = aligned_alloc(V(64), V(SIZE_MAX - 4096));
    show("aligned_alloc(64, huge)", p, errno);
    errno = 0;
    p = memalign(V(65536), V(10));
    show("memalign(65536, 10)", p, errno);
    expect(p == NULL || aligned(p, 65536), "memalign alignment");
    free(p);
    errno = 0;
    p = memalign(V(64), V(SIZE_MAX - 4096));
    show("memalign(64, huge)", p, errno);

    /* Many blocks through every path, freed in a different order than allocated. */
    void *blocks[3000];
    for (int i = 0; i < 3000; i++) {
        size_t n = V(1 + (size_t)i * 37 % 5000);
        switch (i % 5) {
        case 0: blocks[i] = malloc(n); break;
        case 1: blocks[i] = calloc(n, V(1)); break;
        case 2: blocks[i] = realloc(malloc(V(8)), n); break;
        case 3: blocks[i] = aligned_alloc(V(64), (n + 63) & ~(size_t)63); break;
        default: if (posix_memalign(&blocks[i], V(32), n) != 0) blocks[i] = NULL; break;
        }
        expect(blocks[i] != NULL, "allocation");
        memset(blocks[i], i & 0xff, n);
    }
    for (int i = 2999; i >= 0; i -= 2)
        free(blocks[i]);
    for (int i = 0; i < 3000; i += 2)
        free(blocks[i]);

    printf("failures %d\n", failures);
    return failures != 0;
}
