/*
 * The slot limit end to end (t_slots.sh): linked against build/hosted/libmsamp.a, holds N blocks of
 * 64 bytes live until exit (run with MSAMP_INTERVAL=1 MSAMP_INTERVAL_PIN=1 and a live table of
 * 2^21 slots: every allocation a sample, more live entries than 2^20 slots). usage: slots_app N
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1200000;
    void **held = calloc(n, sizeof(*held)); /* one sample too: 8 * N bytes */
    if (!held)
        return 1;
    for (unsigned long i = 0; i < n; i++) {
        held[i] = malloc(64);
        if (!held[i])
            return 1;
    }
    printf("held %lu blocks of 64 bytes\n", n);
    return 0;
}
