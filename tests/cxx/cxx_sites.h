// The C++ allocation sites of tests/cxx, shared by the hosted program (cxx_app.cpp) and the
// firmware (fw/cxx_fw.cpp). Each site is a function that allocates one object through one form
// of operator new (plain, array, nothrow, aligned, and their mixes); run_sites() calls each N times
// and frees most blocks through every form of operator delete C++17 declares (sized, aligned,
// nothrow...); fail_*() ask for more than the allocator gives. The truth goes out line by line
// through emit():
//   site NAME COUNT LIVE SIZE   NAME (the demangled function) allocated COUNT blocks of SIZE bytes
//                               itself, LIVE of them still held at the end
//   inner NAME COUNT LIVE SIZE  the same for blocks functions NAME called (inlined or not) allocated
//   fail NAME SIZE KIND         NAME asked for SIZE bytes and got none: from the allocator (KIND 0),
//                               or from msamp's giant-allocation guard (1)
#ifndef CXX_SITES_H
#define CXX_SITES_H

#include <cstddef>
#include <new>
#include <type_traits>
#include <vector>

namespace cxxsites {

struct Obj {
    char b[96];
};
struct alignas(64) Al {
    char b[128];
};

constexpr std::size_t kChars = 100;
constexpr std::size_t kAlN = 3;
constexpr std::size_t kVecN = 5;
constexpr std::align_val_t kAl{alignof(Al)};
// How a demangler spells size_t: unsigned long on LP64 targets, unsigned int on 32-bit ones.
constexpr const char *kSizeT =
    std::is_same<std::size_t, unsigned long>::value ? "unsigned long" : "unsigned int";

// Each site allocates and returns: no inlining, no tail call (-fno-optimize-sibling-calls).
struct Sites {
    __attribute__((noinline)) static Obj *make_obj() { return new Obj; }
    __attribute__((noinline)) static char *make_chars(std::size_t n) { return new char[n]; }
    __attribute__((noinline)) static Obj *make_obj_nothrow() { return new (std::nothrow) Obj; }
    __attribute__((noinline)) static char *make_chars_nothrow(std::size_t n)
    {
        return new (std::nothrow) char[n];
    }
    __attribute__((noinline)) static Al *make_aligned() { return new Al; }
    __attribute__((noinline)) static Al *make_aligned_array(std::size_t n) { return new Al[n]; }
    __attribute__((noinline)) static Al *make_aligned_nothrow() { return new (std::nothrow) Al; }
    __attribute__((noinline)) static Al *make_aligned_array_nothrow(std::size_t n)
    {
        return new (std::nothrow) Al[n];
    }
    __attribute__((noinline)) static std::vector<Obj> *make_vector(std::size_t n)
    {
        std::vector<Obj> *v = new std::vector<Obj>;
        v->reserve(n);
        return v;
    }
    __attribute__((noinline)) static char *make_huge(std::size_t n) { return new char[n]; }
    __attribute__((noinline)) static char *make_huge_nothrow(std::size_t n)
    {
        return new (std::nothrow) char[n];
    }
    __attribute__((noinline)) static char *make_giant(std::size_t n) { return new char[n]; }
    __attribute__((noinline)) static char *make_giant_nothrow(std::size_t n)
    {
        return new (std::nothrow) char[n];
    }
    __attribute__((noinline)) static Obj *after_failure() { return new Obj; }
};

using Emit = void (*)(const char *line);

// A truth line: KIND "cxxsites::Sites::" FN "(" ARG ")" and the numbers, without printf.
inline void emit_line(Emit emit, const char *kind, const char *fn, const char *arg,
                      const unsigned long long *v, int nv)
{
    char line[256];
    std::size_t n = 0;
    auto put = [&](const char *s) {
        while (*s && n + 1 < sizeof(line))
            line[n++] = *s++;
    };
    put(kind);
    put(" cxxsites::Sites::");
    put(fn);
    put("(");
    put(arg);
    put(")");
    for (int i = 0; i < nv; i++) {
        char d[24];
        int k = 0;
        unsigned long long x = v[i];
        do
            d[k++] = char('0' + x % 10);
        while ((x /= 10) != 0);
        put(" ");
        while (k > 0 && n + 1 < sizeof(line))
            line[n++] = d[--k];
    }
    put("\n");
    line[n] = '\0';
    emit(line);
}

inline void site(Emit emit, const char *kind, const char *fn, const char *arg, int count, int live,
                 std::size_t size)
{
    const unsigned long long v[3] = {(unsigned long long)count, (unsigned long long)live, size};
    emit_line(emit, kind, fn, arg, v, 3);
}

inline void failure(Emit emit, const char *fn, std::size_t size, int kind)
{
    const unsigned long long v[2] = {size, (unsigned long long)kind};
    emit_line(emit, "fail", fn, kSizeT, v, 2);
}

extern void *volatile sink;  // every block escapes: the compiler may not pair and drop new/delete

// Runs each site n times (n <= 240); frees all but keep blocks of each, the first half of them
// through one form of delete, the rest through another. tick() runs after each turn.
inline void run_sites(Emit emit, int n, int keep, void (*tick)())
{
    static Obj *obj[240], *objn[240];
    static char *chars[240], *charsn[240];
    static Al *al[240], *ala[240], *aln[240], *alan[240];
    static std::vector<Obj> *vec[240];
    for (int i = 0; i < n; i++) {
        sink = obj[i] = Sites::make_obj();
        sink = chars[i] = Sites::make_chars(kChars);
        sink = objn[i] = Sites::make_obj_nothrow();
        sink = charsn[i] = Sites::make_chars_nothrow(kChars);
        sink = al[i] = Sites::make_aligned();
        sink = ala[i] = Sites::make_aligned_array(kAlN);
        sink = aln[i] = Sites::make_aligned_nothrow();
        sink = alan[i] = Sites::make_aligned_array_nothrow(kAlN);
        sink = vec[i] = Sites::make_vector(kVecN);
        tick();
    }
    const int half = (n - keep) / 2;
    for (int i = 0; i < n - keep; i++) {
        bool first = i < half;
        if (first)
            delete obj[i];  // operator delete(void*, std::size_t)
        else
            ::operator delete(obj[i]);
        if (first)
            delete[] chars[i];
        else
            ::operator delete[](chars[i], kChars);
        ::operator delete(objn[i], std::nothrow);
        ::operator delete[](charsn[i], std::nothrow);
        if (first)
            delete al[i];  // operator delete(void*, std::size_t, std::align_val_t)
        else
            ::operator delete(al[i], kAl);
        if (first)
            delete[] ala[i];  // operator delete[](void*, std::align_val_t)
        else
            ::operator delete[](ala[i], sizeof(Al) * kAlN, kAl);
        ::operator delete(aln[i], kAl, std::nothrow);
        ::operator delete[](alan[i], kAl, std::nothrow);
        delete vec[i];  // the vector's block (through the allocator), then the vector
        tick();
    }
    site(emit, "site", "make_obj", "", n, keep, sizeof(Obj));
    site(emit, "site", "make_chars", kSizeT, n, keep, kChars);
    site(emit, "site", "make_obj_nothrow", "", n, keep, sizeof(Obj));
    site(emit, "site", "make_chars_nothrow", kSizeT, n, keep, kChars);
    site(emit, "site", "make_aligned", "", n, keep, sizeof(Al));
    site(emit, "site", "make_aligned_array", kSizeT, n, keep, sizeof(Al) * kAlN);
    site(emit, "site", "make_aligned_nothrow", "", n, keep, sizeof(Al));
    site(emit, "site", "make_aligned_array_nothrow", kSizeT, n, keep, sizeof(Al) * kAlN);
    // Two blocks per call: the vector (its own frame's new) and its elements (the allocator's).
    site(emit, "site", "make_vector", kSizeT, n, keep, sizeof(std::vector<Obj>));
    site(emit, "inner", "make_vector", kSizeT, n, keep, kVecN * sizeof(Obj));
}

// A throwing operator new[] of size bytes, which must throw std::bad_alloc, and a nothrow one of
// size + 64, which must return NULL: 0 when both did. kind: the failures' expected FAIL kind;
// giant: through the make_giant sites (the guard's), else make_huge (the allocator's). Out of
// line: its handler's landing pad stays out of its caller's frame.
__attribute__((noinline)) inline int fail_both(Emit emit, std::size_t size, int kind, bool giant)
{
    try {
        sink = giant ? Sites::make_giant(size) : Sites::make_huge(size);
        return 1;
    } catch (const std::bad_alloc &) {
    }
    if ((sink = giant ? Sites::make_giant_nothrow(size + 64) : Sites::make_huge_nothrow(size + 64)))
        return 1;
    failure(emit, giant ? "make_giant" : "make_huge", size, kind);
    failure(emit, giant ? "make_giant_nothrow" : "make_huge_nothrow", size + 64, kind);
    return 0;
}

// After the failures: a site still sampled in full.
inline void run_after(Emit emit, int n, int keep)
{
    static Obj *after[240];
    for (int i = 0; i < n; i++)
        sink = after[i] = Sites::after_failure();
    for (int i = 0; i < n - keep; i++)
        delete after[i];
    site(emit, "site", "after_failure", "", n, keep, sizeof(Obj));
}

}  // namespace cxxsites

#endif
