/*
 * 8 threads allocate, reallocate and free concurrently, some blocks freed by another thread than
 * the one that allocated them. At the end the program writes the blocks it still holds ("ADDR
 * SIZE" lines) to argv[1]; run with MSAMP_INTERVAL=1 and a library that sends addresses, the
 * stream's live set must equal that list exactly (msamp_check live). Built with ThreadSanitizer.
 * Usage: threads_app HELD_FILE [ITERATIONS]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msamp.h"

#define THREADS 8
#define KEEP 24     /* blocks a thread holds at most */
#define MAILBOX 64  /* blocks in transit between threads */

struct block {
    void *p;
    size_t size;
};

struct worker {
    pthread_t tid;
    unsigned id;
    uint64_t rng;
    unsigned iterations;
    struct block held[KEEP];
};

static struct block mailbox[MAILBOX];
static pthread_mutex_t mailbox_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static struct block make(uint64_t *rng)
{
    struct block b;
    size_t n = 1 + next(rng) % 3000;
    switch (next(rng) % 4) {
    case 0:
        b.p = calloc(n, 3);
        n *= 3;
        break;
    case 1:
        b.p = realloc(malloc(16), n);
        break;
    case 2:
        if (posix_memalign(&b.p, 64, n) != 0)
            b.p = NULL;
        break;
    default:
        b.p = malloc(n);
        break;
    }
    if (b.p == NULL)
        abort();
    memset(b.p, 0x5a, n);
    b.size = n;
    return b;
}

/* Moves a block through the mailbox: the thread that takes it out frees it or keeps it. */
static struct block swap_mailbox(struct block b, unsigned slot)
{
    pthread_mutex_lock(&mailbox_lock);
    struct block out = mailbox[slot];
    mailbox[slot] = b;
    pthread_mutex_unlock(&mailbox_lock);
    return out;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    for (unsigned i = 0; i < w->iterations; i++) {
        unsigned k = (unsigned)(next(&w->rng) % KEEP);
        switch (next(&w->rng) % 4) {
        case 0: /* replace a held block */
            free(w->held[k].p);
            w->held[k] = make(&w->rng);
            break;
        case 1: { /* grow or shrink a held block in place or by moving it */
            if (w->held[k].p == NULL)
                break;
            size_t n = 1 + next(&w->rng) % 6000;
            void *q = realloc(w->held[k].p, n);
            if (q == NULL)
                abort();
            w->held[k] = (struct block){q, n};
            break;
        }
        case 2: { /* hand a block to whichever thread comes next; free what was there */
            struct block got = swap_mailbox(w->held[k], (unsigned)(next(&w->rng) % MAILBOX));
            w->held[k] = (struct block){NULL, 0};
            free(got.p);
            break;
        }
        default: { /* a short-lived block */
            struct block t = make(&w->rng);
            free(t.p);
            break;
        }
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    static struct worker workers[THREADS];
    unsigned iterations = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 20000;

    if (argc < 2) {
        fprintf(stderr, "usage: threads_app HELD_FILE [ITERATIONS]\n");
        return 2;
    }
    for (unsigned t = 0; t < THREADS; t++) {
        workers[t].id = t;
        workers[t].rng = 0x9E3779B97F4A7C15ull * (t + 1);
        workers[t].iterations = iterations;
        if (pthread_create(&workers[t].tid, NULL, work, &workers[t]) != 0)
            return 2;
    }
    for (unsigned t = 0; t < THREADS; t++)
        pthread_join(workers[t].tid, NULL);
    FILE *out = fopen(argv[1], "w");
    if (out == NULL) {
        perror(argv[1]);
        return 2;
    }
    unsigned n = 0;
    for (unsigned t = 0; t < THREADS; t++)
        for (unsigned k = 0; k < KEEP; k++)
            if (workers[t].held[k].p != NULL) {
                fprintf(out, "%llx %zu\n", (unsigned long long)(uintptr_t)workers[t].held[k].p,
                        workers[t].held[k].size);
                n++;
            }
    for (unsigned k = 0; k < MAILBOX; k++)
        if (mailbox[k].p != NULL) {
            fprintf(out, "%llx %zu\n", (unsigned long long)(uintptr_t)mailbox[k].p, mailbox[k].size);
            n++;
        }
    fclose(out);

    /* The device's own live table, whatever reached the stream: with every allocation sampled
     * and no bucket overflow it holds exactly the blocks still held. */
    struct msamp_stats s;
    if (msamp_get_stats(&s) != 0)
        return 2;
    printf("threads_app: %u blocks held; msamp: %u samples, %u frees, %u live, %u ring drops, "
           "%u untracked (bucket full), %u reentrant\n",
           n, s.samples, s.frees, s.live_used, s.ring_records, s.live_full, s.reentrant);
    if (s.live_full == 0 && s.live_used != n) {
        printf("threads_app: FAIL: the live table holds %u entries, the program %u blocks\n",
               s.live_used, n);
        return 1;
    }
    return 0;
}
