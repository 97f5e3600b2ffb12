/* The interposer: the allocator's entry points under their own names (malloc, free, calloc,
 * realloc, posix_memalign, aligned_alloc, memalign, valloc, pvalloc, malloc_usable_size), for
 * the preload library (build/hosted/libmsamp_preload.so, LD_PRELOAD) and the interposing link
 * (build/hosted/libmsamp_interpose.a, msamp-interpose.pc): the names every shared library's calls
 * reach (glibc's own strdup, fopen and getline, libstdc++'s operator new, which calls malloc).
 * While profiling runs (msamp_hosted_running) each passes the call to src/wrap/'s wrapper of it,
 * built by hosted.mk as msamp_ip_malloc and so on (-D__wrap_malloc=msamp_ip_malloc): a tail call,
 * so the wrapper's caller is still the program's call site. Before msamp_init (the loader's and
 * libc's start-up, the port's own constructor), after the exit flush and in a fork child, the
 * call goes straight to the real allocator: the core never sees a thread before it has a seed.
 * The wrappers' __real_ functions are here: the next definition in the loader's search order
 * (glibc's, or another interposer's), found by dlsym(RTLD_NEXT). dlsym itself allocates (its
 * error buffer, calloc); so does anything the loader does before the first lookup returns: those
 * requests are served from a static bootstrap buffer, whose blocks free ignores and realloc copies
 * out of. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "hosted.h"

void *__real_malloc(size_t size);
void __real_free(void *p);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
int __real_posix_memalign(void **out, size_t align, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);
void *__real_memalign(size_t align, size_t size);
/* The wrappers (src/wrap/), under the names hosted.mk gives them. */
void *msamp_ip_malloc(size_t size);
void msamp_ip_free(void *p);
void *msamp_ip_calloc(size_t n, size_t size);
void *msamp_ip_realloc(void *p, size_t size);
int msamp_ip_posix_memalign(void **out, size_t align, size_t size);
void *msamp_ip_aligned_alloc(size_t align, size_t size);
void *msamp_ip_memalign(size_t align, size_t size);
/* The exported names. */
void *malloc(size_t size);
void free(void *p);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t size);
int posix_memalign(void **out, size_t align, size_t size);
void *aligned_alloc(size_t align, size_t size);
void *memalign(size_t align, size_t size);
void *valloc(size_t size);
void *pvalloc(size_t size);
size_t malloc_usable_size(void *p);

static struct {
    void *(*malloc)(size_t);
    void (*free)(void *);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*memalign)(size_t, size_t);
    size_t (*usable)(void *);
} real;

/* 0: not looked up; 1: a lookup is under way (its own requests go to the bootstrap buffer);
 * 2: every pointer set. */
static atomic_int state;

/* The bootstrap buffer: blocks of 16-byte aligned sizes, each after a 16-byte header holding its
 * size (malloc_usable_size's answer). What dlsym and the loader ask for before the lookup returns
 * is a few hundred bytes; 64 KiB leaves room for a loader that asks more. */
#define BOOT_BYTES 65536u
static _Alignas(64) unsigned char boot[BOOT_BYTES];
static atomic_size_t boot_used;

static int in_boot(const void *p)
{
    return (uintptr_t)p >= (uintptr_t)boot && (uintptr_t)p < (uintptr_t)boot + BOOT_BYTES;
}

static void *boot_alloc(size_t size, size_t align)
{
    size_t need, at, old;

    if (align < 16)
        align = 16;
    if (size > BOOT_BYTES || align > 4096)
        return NULL;
    need = (size + 15) & ~(size_t)15;
    old = atomic_load(&boot_used);
    do {
        at = (old + 16 + align - 1) & ~(align - 1); /* the block; its header just below */
        if (at + need > BOOT_BYTES)
            return NULL;
    } while (!atomic_compare_exchange_weak(&boot_used, &old, at + need));
    memcpy(boot + at - sizeof size, &size, sizeof size);
    return boot + at; /* zero: the buffer is static and never reused */
}

static size_t boot_size(const void *p)
{
    size_t size;

    memcpy(&size, (const unsigned char *)p - sizeof size, sizeof size);
    return size;
}

/* Looks every function up, once: 1 when they are all there. A request made on the way (by
 * dlsym, on this or another thread) finds state 1 and is served from the bootstrap buffer. */
static int resolve(void)
{
    int s = atomic_load_explicit(&state, memory_order_acquire);
    int expect = 0;

    if (s == 2)
        return 1;
    if (s == 1 || !atomic_compare_exchange_strong(&state, &expect, 1))
        return 0;
    real.malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    real.free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    real.calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    real.realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    real.posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    real.aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
    real.memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
    real.usable = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
    if (real.malloc == NULL || real.free == NULL || real.calloc == NULL || real.realloc == NULL ||
        real.posix_memalign == NULL || real.aligned_alloc == NULL || real.memalign == NULL ||
        real.usable == NULL) {
        static const char msg[] = "msamp: the allocator after msamp's (dlsym RTLD_NEXT) is "
                                  "incomplete; aborting\n";
        (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
        _exit(127);
    }
    atomic_store_explicit(&state, 2, memory_order_release);
    return 1;
}

/* The lookup runs in the constructor at the latest, before the program's own code. */
static __attribute__((constructor(101))) void interpose_start(void)
{
    (void)resolve();
}

#define READY() __builtin_expect(atomic_load_explicit(&state, memory_order_acquire) == 2 || resolve(), 1)

void *__real_malloc(size_t size)
{
    if (READY())
        return real.malloc(size);
    return boot_alloc(size, 16);
}

void *__real_calloc(size_t n, size_t size)
{
    size_t total;

    if (READY())
        return real.calloc(n, size);
    return __builtin_mul_overflow(n, size, &total) ? NULL : boot_alloc(total, 16);
}

void __real_free(void *p)
{
    if (__builtin_expect(in_boot(p), 0))
        return;
    if (READY())
        real.free(p);
}

void *__real_realloc(void *p, size_t size)
{
    if (__builtin_expect(in_boot(p), 0)) {
        size_t old = boot_size(p);
        void *q = __real_malloc(size);

        if (q != NULL)
            memcpy(q, p, old < size ? old : size);
        return q;
    }
    if (READY())
        return real.realloc(p, size);
    return boot_alloc(size, 16); /* p is NULL: nothing is allocated before the lookup but here */
}

int __real_posix_memalign(void **out, size_t align, size_t size)
{
    void *p;

    if (READY())
        return real.posix_memalign(out, align, size);
    p = boot_alloc(size, align);
    if (p == NULL)
        return 12; /* ENOMEM */
    *out = p;
    return 0;
}

void *__real_aligned_alloc(size_t align, size_t size)
{
    if (READY())
        return real.aligned_alloc(align, size);
    return boot_alloc(size, align);
}

void *__real_memalign(size_t align, size_t size)
{
    if (READY())
        return real.memalign(align, size);
    return boot_alloc(size, align);
}

/* Profiling runs: msamp_init() succeeded, the exit flush has not started, not a fork child. */
#define ON() __builtin_expect(atomic_load_explicit(&msamp_hosted_running, memory_order_relaxed), 1)

void *malloc(size_t size)
{
    if (ON())
        return msamp_ip_malloc(size);
    return __real_malloc(size);
}

void free(void *p)
{
    if (ON())
        msamp_ip_free(p);
    else
        __real_free(p);
}

void *calloc(size_t n, size_t size)
{
    if (ON())
        return msamp_ip_calloc(n, size);
    return __real_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    if (ON())
        return msamp_ip_realloc(p, size);
    return __real_realloc(p, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
    if (ON())
        return msamp_ip_posix_memalign(out, align, size);
    return __real_posix_memalign(out, align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
    if (ON())
        return msamp_ip_aligned_alloc(align, size);
    return __real_aligned_alloc(align, size);
}

void *memalign(size_t align, size_t size)
{
    if (ON())
        return msamp_ip_memalign(align, size);
    return __real_memalign(align, size);
}

/* valloc and pvalloc are memalign at the page size (pvalloc rounds the size up to whole pages,
 * at least one): tail calls, so the wrapper's caller is the program's call site. */
void *valloc(size_t size)
{
    return memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

void *pvalloc(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t whole = size == 0 ? page : (size + page - 1) & ~(page - 1);

    if (whole < size)
        whole = SIZE_MAX; /* overflow: the allocator fails it */
    return memalign(page, whole);
}

/* Left working: the allocator's answer, or the bootstrap block's size. */
size_t malloc_usable_size(void *p)
{
    if (__builtin_expect(in_boot(p), 0))
        return boot_size(p);
    if (p == NULL || !READY())
        return 0;
    return real.usable(p);
}
