/*
 * The application behind the README's firmware snippet (test docs-firmware-snippet): the snippet,
 * extracted from README.md as written, is main(); this file is the do_work() it calls. Each call
 * allocates at three sites, each a function of its own, so the drained profile can be checked for
 * symbolized sites with their file:line, called from do_work() and the snippet's main():
 *   queue_message  a message queue of up to QUEUE_MAX blocks (80 KB), the oldest freed: the live
 *                  set, about 20 samples at the snippet's interval
 *   parse_packet   a scratch buffer freed at once (allocated, never in use at the end)
 *   grow_log       a log grown by realloc, then dropped
 * and then idles a little, as firmware waiting for its next event does (so the UART stream stays
 * a few hundred KB a second). The allocator is the demo firmware's heap (demo_heap.c).
 */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "demo.h"

void do_work(void);

#define QUEUE_MAX 400
#define IDLE_US 200

struct message {
    struct message *next;
    uint8_t body[200];
};

static struct message *queue_head, *queue_tail;
static unsigned queued;
static volatile uint8_t sink;

_Noreturn void demo_fail(const char *why)
{
    board_console("do_work: ");
    board_console(why);
    board_console("\n");
    board_exit(1);
}

static void *checked(void *p)
{
    if (p == NULL)
        demo_fail("out of heap");
    return p;
}

__attribute__((noinline)) static void queue_message(unsigned n)
{
    struct message *m = checked(malloc(sizeof *m));
    m->next = NULL;
    m->body[0] = (uint8_t)n;
    if (queue_tail != NULL)
        queue_tail->next = m;
    else
        queue_head = m;
    queue_tail = m;
    if (++queued > QUEUE_MAX) {
        struct message *old = queue_head;
        queue_head = old->next;
        free(old);
        queued--;
    }
}

__attribute__((noinline)) static void parse_packet(unsigned n)
{
    size_t len = 256u + (n % 8u) * 128u;
    uint8_t *p = checked(malloc(len));
    p[0] = (uint8_t)n;
    p[len - 1] = (uint8_t)len;
    sink = p[0];
    free(p);
}

__attribute__((noinline)) static void grow_log(void)
{
    uint8_t *log = NULL;
    for (size_t n = 64; n <= 2048; n *= 2) {
        log = checked(realloc(log, n));
        log[n - 1] = (uint8_t)n;
    }
    free(log);
}

void do_work(void)
{
    static unsigned n;
    n++;
    queue_message(n);
    parse_packet(n);
    if (n % 4u == 0)
        grow_log();
    uint64_t until = board_ticks() + board_tick_hz() * IDLE_US / 1000000u;
    while (board_ticks() < until) {
    }
}
