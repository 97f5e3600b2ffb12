/* What a bare-metal walk may read, as the link gives it: the stack between __msamp_stack_lo and
 * __msamp_stack_hi, and the code between __msamp_text_lo and __msamp_text_hi (declared weak: a
 * link without them leaves both 0, which the walkers read as "not checked"). */
#ifndef MSAMP_LINK_BOUNDS_H
#define MSAMP_LINK_BOUNDS_H

#include <stdint.h>

struct msamp_bounds {
    uintptr_t stack_lo, stack_hi; /* stack loads lie in [stack_lo, stack_hi) */
    uintptr_t text_lo, text_hi;   /* return addresses lie in [text_lo, text_hi); both 0: unchecked */
};

extern const char __msamp_stack_lo[], __msamp_stack_hi[];
extern const char __msamp_text_lo[] __attribute__((weak));
extern const char __msamp_text_hi[] __attribute__((weak));

/* The initializer of a struct msamp_bounds with the link's bounds: a static constant, which a
 * walk reads in place (no copy on the stack, no register to save for it). */
#define MSAMP_LINK_BOUNDS                                                                      \
    {(uintptr_t)__msamp_stack_lo, (uintptr_t)__msamp_stack_hi, (uintptr_t)__msamp_text_lo,      \
     (uintptr_t)__msamp_text_hi}

#endif
