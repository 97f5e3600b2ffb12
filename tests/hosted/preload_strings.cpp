// issue 39's C++ program, linked the default way (dynamic libstdc++): N std::string(300, 'x')
// kept live to the end. Each is one operator new(301) inside libstdc++.so, whose operator new
// calls malloc: msamp sees it only through the preload library or the interposing link.
// Prints the truth and where libstdc++'s operator new is, for tests/hosted/preload_sites.py.
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

__attribute__((noinline)) static void make_strings(std::string *v, long n)
{
    for (long i = 0; i < n; i++)
        new (&v[i]) std::string(300, 'x');
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? std::atol(argv[1]) : 100000;
    // Their array from malloc, never freed: operator new's only calls are the strings', and the
    // strings are live at the end.
    auto *v = static_cast<std::string *>(std::malloc(n * sizeof(std::string)));
    if (v == nullptr)
        return 1;
    make_strings(v, n);
    void *(*op_new)(std::size_t) = &::operator new;
    std::printf("leaf %p caller make_strings objects %ld bytes %ld live %ld\n", (void *)op_new, n,
                n * 301, n * 301);
    return 0;
}
