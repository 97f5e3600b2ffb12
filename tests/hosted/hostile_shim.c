/*
 * The allocator under tests/hosted/hostile_app.c: a replacement of glibc's malloc family defined in
 * the executable. With msamp's --wrap flags the program's calls go to __wrap_malloc..., whose
 * __real_malloc... resolve to these functions (glibc's own calls reach them directly). Unlike
 * glibc, it tolerates what a buggy program does (double frees, frees and reallocs of pointers it
 * never returned: stack addresses, the middle of a block, mmap'ed pages), so msamp can be watched
 * under them, and it records every call made while shim_recording is set: which function, its
 * arguments, its result and the errno it left. Small freed blocks are handed out again (LIFO per
 * 16-byte size class), so a double free may hit a block that lives again, as in real allocators.
 * Single lock, bump allocation from one reserved mapping, never returned to the system.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "hostile_shim.h"

#define ARENA_BYTES (4ull << 30) /* reserved, touched as used */
#define LIMIT (1ull << 30)       /* larger requests (or alignments) fail with ENOMEM */
#define MAGIC 0x5348494d424c4b31ull
#define MAX_BLOCKS (1u << 18)
#define REUSE_MAX 256u

struct hdr {
    uint64_t magic;
    void *self;      /* the user pointer this header belongs to */
    size_t size;     /* requested size */
    size_t room;     /* usable bytes */
    uint32_t live;   /* 1 allocated, 0 freed */
    uint32_t app;    /* allocated while recording: one of the program's own calls */
    void *next_free; /* reuse list */
};
_Static_assert(sizeof(struct hdr) == 48, "header size");

volatile int shim_recording;
struct shim_call shim_log[SHIM_LOG_MAX];
volatile unsigned shim_log_count;
unsigned long shim_double_frees, shim_foreign_frees;

static atomic_flag lock = ATOMIC_FLAG_INIT;
static uint8_t *arena, *bump, *arena_end;
static void *blocks[MAX_BLOCKS]; /* every block ever handed out, for shim_app_live */
static unsigned nblocks;
static void *reuse[REUSE_MAX / 16 + 1];

static void take(void)
{
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
}

static void give(void)
{
    atomic_flag_clear_explicit(&lock, memory_order_release);
}

static void note(enum shim_fn fn, uintptr_t a0, uintptr_t a1, uintptr_t a2, uintptr_t ret,
                 uintptr_t out)
{
    if (!shim_recording)
        return;
    if (shim_log_count < SHIM_LOG_MAX)
        shim_log[shim_log_count] = (struct shim_call){fn, {a0, a1, a2}, ret, out, errno};
    shim_log_count++;
}

/* The block's header when p is a pointer this allocator returned (live or freed), else NULL. */
static struct hdr *header(const void *p)
{
    const uint8_t *u = p;

    if (u == NULL || arena == NULL || u < arena + sizeof(struct hdr) || u >= bump ||
        ((uintptr_t)u & 15u) != 0)
        return NULL;
    struct hdr *h = (struct hdr *)(u - sizeof(struct hdr));
    return h->magic == MAGIC && h->self == p ? h : NULL;
}

/* A block of size bytes aligned to align (a power of two, >= 16), or NULL (errno ENOMEM). */
static void *get(size_t size, size_t align)
{
    size_t room = size == 0 ? 16 : (size + 15) & ~(size_t)15;
    uint8_t *u;

    if (size > LIMIT || align > LIMIT) {
        errno = ENOMEM;
        return NULL;
    }
    take();
    if (arena == NULL) {
        void *m = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) {
            give();
            errno = ENOMEM;
            return NULL;
        }
        arena = bump = m;
        arena_end = arena + ARENA_BYTES;
    }
    if (align == 16 && room <= REUSE_MAX && reuse[room / 16] != NULL) {
        u = reuse[room / 16];
        struct hdr *h = header(u);
        reuse[room / 16] = h->next_free;
        h->size = size;
        h->live = 1;
        h->app = shim_recording != 0;
        give();
        return u;
    }
    u = (uint8_t *)(((uintptr_t)bump + sizeof(struct hdr) + align - 1) & ~(uintptr_t)(align - 1));
    if (u + room > arena_end || nblocks == MAX_BLOCKS) {
        give();
        errno = ENOMEM;
        return NULL;
    }
    bump = u + room;
    struct hdr *h = (struct hdr *)(u - sizeof(struct hdr));
    *h = (struct hdr){MAGIC, u, size, room, 1, shim_recording != 0, NULL};
    blocks[nblocks++] = u;
    give();
    return u;
}

/* Frees p if it is a live block; a double free or a foreign pointer is counted and ignored. */
static void put(void *p)
{
    if (p == NULL)
        return;
    take();
    struct hdr *h = header(p);
    if (h == NULL) {
        shim_foreign_frees++;
    } else if (!h->live) {
        shim_double_frees++;
    } else {
        h->live = 0;
        if (h->room <= REUSE_MAX && ((uintptr_t)p & 15u) == 0 && h->room / 16 < REUSE_MAX / 16 + 1) {
            h->next_free = reuse[h->room / 16];
            reuse[h->room / 16] = p;
        }
    }
    give();
}

static int pow2(size_t a)
{
    return a != 0 && (a & (a - 1)) == 0;
}

void *malloc(size_t size)
{
    void *p = get(size, 16);
    note(SHIM_MALLOC, size, 0, 0, (uintptr_t)p, 0);
    return p;
}

void free(void *p)
{
    put(p);
    note(SHIM_FREE, (uintptr_t)p, 0, 0, 0, 0);
}

void *calloc(size_t n, size_t size)
{
    size_t total;
    void *p = NULL;

    if (__builtin_mul_overflow(n, size, &total))
        errno = ENOMEM;
    else if ((p = get(total, 16)) != NULL)
        memset(p, 0, total);
    note(SHIM_CALLOC, n, size, 0, (uintptr_t)p, 0);
    return p;
}

/* realloc(NULL, n) is malloc(n); realloc(p, 0) frees p and returns NULL (glibc's choice); a
 * freed block is moved as if it were live (its old contents are still there); a pointer this
 * allocator never returned fails with EINVAL. Shrinking stays in place. */
void *realloc(void *old, size_t size)
{
    void *p = NULL;

    if (old == NULL) {
        p = get(size, 16);
    } else if (size == 0) {
        put(old);
    } else {
        struct hdr *h = header(old);
        if (h == NULL) {
            errno = EINVAL;
        } else if (size <= h->room && h->live) {
            h->size = size;
            h->app = shim_recording != 0;
            p = old;
        } else if ((p = get(size, 16)) != NULL) {
            memcpy(p, old, h->size < size ? h->size : size);
            put(old);
        }
    }
    note(SHIM_REALLOC, (uintptr_t)old, size, 0, (uintptr_t)p, 0);
    return p;
}

int posix_memalign(void **out, size_t align, size_t size)
{
    int rc = 0;
    int saved = errno;

    if (!pow2(align) || align % sizeof(void *) != 0) {
        rc = EINVAL;
    } else {
        void *p = get(size, align < 16 ? 16 : align);
        if (p == NULL)
            rc = ENOMEM;
        else
            *out = p;
    }
    errno = saved; /* posix_memalign reports through its result, not errno */
    note(SHIM_POSIX_MEMALIGN, (uintptr_t)out, align, size, (uintptr_t)rc,
         rc == 0 ? (uintptr_t)*out : 0);
    return rc;
}

static void *aligned(size_t align, size_t size)
{
    if (!pow2(align)) {
        errno = EINVAL;
        return NULL;
    }
    return get(size, align < 16 ? 16 : align);
}

void *aligned_alloc(size_t align, size_t size)
{
    void *p = aligned(align, size);
    note(SHIM_ALIGNED_ALLOC, align, size, 0, (uintptr_t)p, 0);
    return p;
}

void *memalign(size_t align, size_t size)
{
    void *p = aligned(align, size);
    note(SHIM_MEMALIGN, align, size, 0, (uintptr_t)p, 0);
    return p;
}

void *valloc(size_t size)
{
    return get(size, 4096);
}

void *pvalloc(size_t size)
{
    return get((size + 4095) & ~(size_t)4095, 4096);
}

size_t malloc_usable_size(void *p)
{
    struct hdr *h = header(p);
    return h != NULL && h->live ? h->room : 0;
}

int shim_live(const void *p, size_t *size, int *app)
{
    take();
    struct hdr *h = header(p);
    int live = h != NULL && h->live;
    if (live) {
        *size = h->size;
        *app = (int)h->app;
    }
    give();
    return live;
}

size_t shim_app_live(void **out, size_t *sizes, size_t max)
{
    size_t n = 0;

    take();
    for (unsigned i = 0; i < nblocks; i++) {
        struct hdr *h = header(blocks[i]);
        if (h != NULL && h->live && h->app) {
            if (n < max) {
                out[n] = blocks[i];
                sizes[n] = h->size;
            }
            n++;
        }
    }
    give();
    return n;
}
