// A C++ program as it ships (dynamic libstdc++) for the heaptrack comparison
// (tests/hosted/preload_heaptrack.py): a std::map of N std::string keys (40 characters: beyond the
// small-string buffer) to std::vector<int> values of 8, built from two functions of its own, half
// its entries erased, the rest kept to the end. Every allocation is operator new's, inside
// libstdc++.so. Usage: preload_map N
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

using Table = std::map<std::string, std::vector<int>>;

__attribute__((noinline)) static std::string make_key(long i)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "key-%036ld", i);
    return std::string(buf);
}

__attribute__((noinline)) static void fill(Table &t, long n)
{
    for (long i = 0; i < n; i++)
        t.emplace(make_key(i * 7919 % n), std::vector<int>(8, static_cast<int>(i)));
}

__attribute__((noinline)) static void thin(Table &t)
{
    long k = 0;
    for (auto it = t.begin(); it != t.end(); k++)
        it = k % 2 ? t.erase(it) : std::next(it);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? std::atol(argv[1]) : 100000;
    static Table *t = new Table; // kept to the end
    fill(*t, n);
    thin(*t);
    std::printf("%zu entries\n", t->size());
    return 0;
}
