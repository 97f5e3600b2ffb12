/* Every feature knob off: the core that `make size`'s minimal rows measure (docs/TINY.md, "Pay for
 * what you use"), with the tiny profile (MSAMP_PROFILE=tiny) and only malloc and free wrapped
 * (MSAMP_WRAP_FUNCS="malloc free"). Timestamps and the build-id are kept. Include it before
 * msamp_config.h (-include include/msamp_config_minimal.h, beside msamp_config_small.h for its
 * table sizes); each knob can still be set with -D. What each knob drops:
 * include/msamp_config.h. */
#ifndef MSAMP_CFG_ADAPTIVE
#define MSAMP_CFG_ADAPTIVE 0
#endif
#ifndef MSAMP_CFG_HEAPDUMP
#define MSAMP_CFG_HEAPDUMP 0
#endif
#ifndef MSAMP_CFG_FAILURES
#define MSAMP_CFG_FAILURES 0
#endif
#ifndef MSAMP_CFG_STACK_RESEND_SAMPLES
#define MSAMP_CFG_STACK_RESEND_SAMPLES 0
#endif
#ifndef MSAMP_CFG_RESEND_BYTES
#define MSAMP_CFG_RESEND_BYTES 0
#endif
#ifndef MSAMP_CFG_WRAP_NESTED
#define MSAMP_CFG_WRAP_NESTED 0
#endif
#ifndef MSAMP_CFG_REALLOC_CHAINS
#define MSAMP_CFG_REALLOC_CHAINS 0
#endif
#ifndef MSAMP_CFG_FREE_FILTER
#define MSAMP_CFG_FREE_FILTER 0
#endif
#ifndef MSAMP_CFG_DEVICE_ID
#define MSAMP_CFG_DEVICE_ID 0
#endif
#ifndef MSAMP_CFG_UNWIND_CACHE
#define MSAMP_CFG_UNWIND_CACHE 0
#endif
