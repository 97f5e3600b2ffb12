/* How often the live table refuses a sample at a given load, with addresses from a first-fit heap
 * (16-byte granules, sizes 16..1024) and from page-aligned blocks (glibc's mmap'ed chunks: 4 KiB
 * granules + 16). Built once per MSAMP_CFG_LIVE_WAYS; prints one line per pattern. */
#include <stdio.h>

#include "msamp_internal.h"

static void pattern(uintptr_t base, uintptr_t granule, unsigned spread, const char *name)
{
    uint64_t rng = msamp_rng_seed(1);
    const unsigned loads[] = {25, 50, 75};
    printf("live table %u slots, %u ways, %-12s", MSAMP_CFG_LIVE_CAPACITY, MSAMP_CFG_LIVE_WAYS,
           name);
    for (unsigned l = 0; l < 3; l++) {
        unsigned blocks = MSAMP_CFG_LIVE_CAPACITY * loads[l] / 100;
        unsigned long tries = 0, refused = 0;
        for (int trial = 0; trial < 2000; trial++) {
            msamp_table_reset();
            uintptr_t a = base;
            for (unsigned k = 0; k < blocks; k++) {
                a += granule * (1u + (uintptr_t)(msamp_rng_next(&rng) % spread));
                int32_t s = msamp_live_free_slot(a);
                tries++;
                if (s < 0)
                    refused++;
                else
                    msamp_live_set((uint32_t)s, a, 16, 1, 0, 1);
            }
        }
        printf("  %u%% load: %.2f%% refused", loads[l], 100.0 * (double)refused / (double)tries);
    }
    printf("\n");
}

int main(void)
{
    pattern(0x40100000u, 16, 64, "first-fit:");
    pattern((uintptr_t)0x7f0000000010ull, 4096, 16, "page-strided:");
    return 0;
}
