/*
 * Allocations whose callers keep no frame pointer, for the unwinder-safety test. Linked statically
 * (glibc's own allocations go through the wrappers too, from frames that use rbp/x29 as a plain
 * register) and run with MSAMP_INTERVAL=1, so every one of them is walked:
 *   - glibc internals: fopen, strdup, qsort with an allocating comparator, getline, printf;
 *   - nofp_lib.c, built with -fomit-frame-pointer, whose functions allocate;
 *   - alloc_with_fp(): calls malloc with the frame-pointer register set to hostile values (zero,
 *     odd, tiny, kernel-space, all-ones, the stack just below the walker, a self-loop, a chain that
 *     points downwards, heap memory).
 * With a second argument, no-hostile, the last are left out: a walk by the code's call frame
 * information (MSAMP_UNWIND=dwarf) trusts the CFI, which these calls make lie.
 * The walk must end without a fault; the test checks that the stream decodes and that every
 * hostile call was sampled with alloc_with_fp as its innermost frame (truth file, argv[1]). What
 * comes after that frame is whatever the hostile value leads to, within the stack's bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *nofp_alloc_chain(unsigned depth, size_t n);
void nofp_free(void *p);

static volatile uintptr_t sink;

#if defined(__x86_64__) || defined(__aarch64__)
/* malloc(n) with the frame-pointer register holding fp for the duration of the call. */
#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

NOINLINE static void *alloc_with_fp(uintptr_t fp, size_t n)
{
    void *ret;
#if defined(__x86_64__)
    /* Step over the red zone, keep the call 16-byte aligned; rbx holds the old rsp. */
    __asm__ volatile("mov %%rsp, %%rbx\n\t"
                     "sub $128, %%rsp\n\t"
                     "and $-16, %%rsp\n\t"
                     "push %%rbp\n\t"
                     "sub $8, %%rsp\n\t"
                     "mov %[fp], %%rbp\n\t"
                     "call malloc@PLT\n\t"
                     "add $8, %%rsp\n\t"
                     "pop %%rbp\n\t"
                     "mov %%rbx, %%rsp\n\t"
                     : "=a"(ret), "+D"(n)
                     : [fp] "r"(fp)
                     : "rbx", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "memory", "cc",
                       "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                       "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#else
    register uintptr_t x0 __asm__("x0") = n;
    __asm__ volatile("stp x29, x30, [sp, #-16]!\n\t"
                     "mov x29, %[fp]\n\t"
                     "bl malloc\n\t"
                     "ldp x29, x30, [sp], #16\n\t"
                     : "+r"(x0)
                     : [fp] "r"(fp)
                     : "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12",
                       "x13", "x14", "x15", "x16", "x17", "x18", "x30", "memory", "cc", "v0", "v1",
                       "v2", "v3", "v4", "v5", "v6", "v7", "v16", "v17", "v18", "v19", "v20",
                       "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31");
    ret = (void *)x0;
#endif
    sink ^= (uintptr_t)ret;
    return ret;
}
#define HAVE_HOSTILE 1
#endif

static int cmp_alloc(const void *a, const void *b)
{
    char *t = strdup("comparator"); /* allocates from inside glibc's qsort */
    sink ^= (uintptr_t)t;
    free(t);
    return *(const int *)a - *(const int *)b;
}

static void glibc_paths(void)
{
    int v[64];
    for (int i = 0; i < 64; i++)
        v[i] = (i * 7919) % 64;
    qsort(v, 64, sizeof v[0], cmp_alloc);

    FILE *f = fopen("/proc/self/maps", "r");
    if (f != NULL) {
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, f) > 0)
            sink ^= (uintptr_t)line[0];
        free(line);
        fclose(f);
    }
    char *s = strdup("strdup from the application");
    printf("%s %*d\n", s, 5000, 1); /* a wide field makes vfprintf allocate a work buffer */
    free(s);
}

int main(int argc, char **argv)
{
    unsigned hostile = 0;

    if (argc < 2 || (argc > 2 && strcmp(argv[2], "no-hostile") != 0)) {
        fprintf(stderr, "usage: unwind_app TRUTH_FILE [no-hostile]\n");
        return 2;
    }
    glibc_paths();
    for (unsigned d = 1; d <= 40; d++)
        nofp_free(nofp_alloc_chain(d, 64 + d));

#ifdef HAVE_HOSTILE
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    uintptr_t loop[4], down[4];
    uintptr_t *heap = malloc(64 * sizeof(uintptr_t));
    loop[0] = (uintptr_t)&loop[0]; /* a record pointing at itself */
    loop[1] = 0x1234;
    down[0] = (uintptr_t)&down[0] - 4096; /* a chain going towards the stack's end */
    down[1] = 0x5678;
    for (int i = 0; i < 64; i++)
        heap[i] = (uintptr_t)&heap[(i + 2) % 64]; /* a cycle in the heap */
    const uintptr_t values[] = {0,
                                1,
                                8,
                                0xfff,
                                here | 1,
                                here - 4096,
                                here - 64,
                                (uintptr_t)&loop[0],
                                (uintptr_t)&down[0],
                                (uintptr_t)heap,
                                (uintptr_t)0xffff800000000000ull,
                                UINTPTR_MAX - 7,
                                UINTPTR_MAX - 15,
                                UINTPTR_MAX};
    for (unsigned k = 0; k < sizeof values / sizeof values[0] && argc == 2; k++) {
        for (unsigned rep = 0; rep < 10; rep++) {
            void *p = alloc_with_fp(values[k], 100);
            if (p == NULL)
                return 1;
            free(p);
            hostile++;
        }
    }
    free(heap);
#endif

    FILE *out = fopen(argv[1], "w");
    if (out == NULL)
        return 2;
    for (unsigned d = 1; d <= 40; d++)
        fprintf(out, "site nofp_alloc_chain %u 1 0\n", 64 + d);
    if (hostile != 0) {
        fprintf(out, "site alloc_with_fp 100 %u 0\n", hostile);
    }
    fclose(out);
    printf("unwind_app: %u hostile frame pointers survived\n", hostile);
    return 0;
}
