/*
 * Allocation-heavy workloads for `make bench`, linked three ways (no wrapper, a bare counting
 * --wrap, msamp) and compared in the same run. Prints the number of allocator calls it made.
 *   bench_alloc micro N   N malloc+free pairs of sizes 16..1040, 256 blocks alive at a time:
 *                         the allocator and little else (the worst case for any wrapper)
 *   bench_alloc app N     a word-frequency count over N generated words: copied keys in a
 *                         chained hash table, a growing output buffer (realloc), entries evicted
 *                         and freed: allocation-heavy, but with the work real programs do around it
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static unsigned long calls;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void micro(unsigned long n)
{
    void *live[256] = {0};
    for (unsigned long i = 0; i < n; i++) {
        unsigned k = (unsigned)(i & 255);
        free(live[k]);
        size_t size = 16 + (size_t)(next() & 1023);
        live[k] = malloc(size);
        if (live[k] == NULL)
            abort();
        ((volatile char *)live[k])[0] = (char)i;
        calls += 2;
    }
    for (unsigned k = 0; k < 256; k++) {
        free(live[k]);
        calls++;
    }
}

/* strdup through the wrapped malloc (glibc's own strdup calls its internal malloc when linked
 * dynamically, which no --wrap sees). */
static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p != NULL)
        memcpy(p, s, n);
    return p;
}

struct entry {
    struct entry *next;
    char *word;
    unsigned long count;
};

#define BUCKETS 4096

/* The words compared a byte at a time: glibc's vector strcmp costs a different number of
 * instructions by where each string lies in its page, and the blocks' addresses differ between the
 * builds and allocators compared (jemalloc's random cache offsets, msamp's tables). */
static int same_word(const char *a, const char *b)
{
    while (*a != '\0' && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

static uint32_t hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static void app(unsigned long n)
{
    static struct entry *table[BUCKETS];
    char word[32];
    size_t out_len = 0, out_cap = 0;
    char *out = NULL;
    unsigned long entries = 0;

    for (unsigned long i = 0; i < n; i++) {
        /* A word from a skewed vocabulary: short common words, long rare ones. */
        uint64_t r = next();
        unsigned len = 2 + (unsigned)(r % 7) + ((r >> 8) % 16 == 0 ? (unsigned)((r >> 12) % 20) : 0);
        uint64_t v = (r >> 20) % (1 + (r >> 40) % 50000);
        for (unsigned j = 0; j < len; j++) {
            word[j] = (char)('a' + v % 26);
            v = v / 26 + j * 7;
        }
        word[len] = '\0';
        uint32_t b = hash(word) % BUCKETS;
        struct entry *e;
        for (e = table[b]; e != NULL; e = e->next)
            if (same_word(e->word, word))
                break;
        if (e != NULL) {
            e->count++;
        } else {
            e = malloc(sizeof *e);
            if (e == NULL || (e->word = xstrdup(word)) == NULL)
                abort();
            calls += 2;
            e->count = 1;
            e->next = table[b];
            table[b] = e;
            entries++;
        }
        /* Every 64 words, log a line; every 4096, evict the bucket's rare words. */
        if (i % 64 == 0) {
            if (out_len + 64 > out_cap) {
                out_cap = out_cap ? out_cap * 2 : 256;
                out = realloc(out, out_cap);
                if (out == NULL)
                    abort();
                calls++;
            }
            out_len += (size_t)snprintf(out + out_len, 64, "%lu %s\n", i, word);
            if (out_len > (1u << 20)) {
                free(out);
                calls++;
                out = NULL;
                out_len = out_cap = 0;
            }
        }
        if (i % 4096 == 0) {
            for (unsigned k = 0; k < BUCKETS; k += 7) {
                struct entry **pp = &table[(k + i) % BUCKETS];
                while (*pp != NULL) {
                    if ((*pp)->count < 3) {
                        struct entry *dead = *pp;
                        *pp = dead->next;
                        free(dead->word);
                        free(dead);
                        calls += 2;
                        entries--;
                    } else {
                        pp = &(*pp)->next;
                    }
                }
            }
        }
    }
    free(out);
    calls++;
    printf("entries %lu\n", entries);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_alloc micro|app N\n");
        return 2;
    }
    unsigned long n = strtoul(argv[2], NULL, 10);
    if (strcmp(argv[1], "micro") == 0)
        micro(n);
    else if (strcmp(argv[1], "app") == 0)
        app(n);
    else
        return 2;
    printf("calls %lu\n", calls);
    return 0;
}
