/*
 * Allocations reached through code without frame pointers, for the DWARF-stacks test: a shared
 * library built with -fomit-frame-pointer (dwarf_lib.c) calling malloc itself, glibc's qsort
 * calling a comparator that allocates, libstdc++'s ostream calling a streambuf that allocates,
 * std::string in a function of ours (C++20: its allocation is instantiated here, so the wrapper
 * sees it), a dlopen()ed library's constructor allocating under the loader's lock, and a
 * profiling timer's handler allocating (dwarf_sig.c) while the thread also throws and catches
 * exceptions (libgcc's unwinder interrupted). Every sampled stack must reach main.
 * Usage: dwarf_app ROUNDS CTOR_LIBRARY
 */
#include <dlfcn.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <streambuf>
#include <string>

extern "C" {
void *nofp_so_chain(unsigned depth, size_t n, void *(*alloc)(size_t));
void dwarf_ctor_alloc(size_t n);
int dwarf_sig_start(void);
unsigned dwarf_sig_stop(void);
}

static volatile uintptr_t sink;

static void keep(void *p)
{
    sink = sink ^ (uintptr_t)p;
    free(p);
}

extern "C" __attribute__((noinline)) void dwarf_ctor_alloc(size_t n)
{
    keep(malloc(n));
}

/* malloc's wrapper called straight from the library's frames. */
__attribute__((noinline)) static void through_so(unsigned i)
{
    keep(nofp_so_chain(5, 100 + i % 50, malloc));
}

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
    keep(malloc(77));
    return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static void through_qsort(unsigned i)
{
    int v[8] = {5, 3, 1, 7, 2, 8, 6, (int)(i % 9)};
    qsort(v, 8, sizeof v[0], cmp);
}

struct allocbuf : std::streambuf {
    std::streamsize xsputn(const char *, std::streamsize n) override
    {
        keep(malloc((size_t)n + 100));
        return n;
    }
    int overflow(int c) override { return c; }
};

__attribute__((noinline)) static void through_ostream(std::ostream &os)
{
    os << "through libstdc++";
}

__attribute__((noinline)) static size_t make_string(unsigned i)
{
    std::string s(300 + i % 64, 'x');
    sink = sink ^ (uintptr_t)s.data();
    return s.size();
}

__attribute__((noinline)) static int throw_catch(unsigned i)
{
    try {
        if (sink != (uintptr_t)i + 1)
            throw (int)i;
    } catch (int e) {
        return e;
    }
    return 0;
}

__attribute__((noinline)) static int through_dlopen(const char *lib)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "dwarf_app: %s\n", dlerror());
        return -1;
    }
    return dlclose(h);
}

int main(int argc, char **argv)
{
    unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[1], NULL, 10) : 0;
    allocbuf b;
    std::ostream os(&b);
    size_t total = 0;

    if (rounds == 0 || dwarf_sig_start() != 0)
        return 2;
    for (unsigned i = 0; i < rounds; i++) {
        through_so(i);
        through_qsort(i);
        through_ostream(os);
        total += make_string(i);
        total += (size_t)throw_catch(i);
        if (i % (rounds / 20 + 1) == 0 && through_dlopen(argv[2]) != 0)
            return 1;
    }
    unsigned handled = dwarf_sig_stop();
    printf("dwarf_app: %u rounds, %u handler runs, %zu\n", rounds, handled, total);
    return handled > 0 ? 0 : 1;
}
