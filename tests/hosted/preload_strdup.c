/* issue 39's C program: N strdup() copies of a 300-character string kept live to the end. glibc's
 * strdup calls malloc(301) from inside libc.so: msamp sees it only through the preload library or
 * the interposing link. Prints the truth and where strdup is, for tests/hosted/preload_sites.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char text[301];

__attribute__((noinline)) static void keep_copies(char **out, long n)
{
    for (long i = 0; i < n; i++)
        out[i] = strdup(text);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    char **v = calloc((size_t)n, sizeof *v);
    char *(*dup)(const char *) = strdup;

    if (v == NULL)
        return 1;
    memset(text, 'x', 300);
    keep_copies(v, n);
    printf("leaf %p caller keep_copies objects %ld bytes %ld live %ld\n", (void *)dup, n, n * 301,
           n * 301);
    return 0;
}
