// The hosted C++ program of tests/cxx/hosted.sh: the sites of cxx_sites.h run 240 times each, then
// an operator new[] the allocator cannot meet (2^62 bytes: std::bad_alloc, caught) and a nothrow
// one (NULL), then a site that must still be sampled. Writes the truth (cxx_sites.h) to argv[1].
#include <cstdio>

#include "cxx_sites.h"

void *volatile cxxsites::sink;

static std::FILE *truth;

static void emit(const char *line)
{
    std::fputs(line, truth);
}

static void tick() {}

int main(int argc, char **argv)
{
    if (argc != 2 || !(truth = std::fopen(argv[1], "w"))) {
        std::fprintf(stderr, "usage: cxx_app TRUTH\n");
        return 2;
    }
    cxxsites::run_sites(emit, 240, 40, tick);
    // More than any machine gives (a 64-bit address space is 2^48 bytes, or 2^57); volatile: not a
    // constant the compiler could see.
    static volatile std::size_t huge = std::size_t(1) << 62;
    if (cxxsites::fail_both(emit, huge, 0, false) != 0) {
        std::fprintf(stderr, "cxx_app: a 2^62-byte new returned\n");
        return 1;
    }
    cxxsites::run_after(emit, 240, 40);
    return std::fclose(truth) == 0 ? 0 : 1;
}
