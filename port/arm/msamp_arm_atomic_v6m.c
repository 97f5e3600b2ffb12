/* Atomic loads and stores for clang on ARMv6-M (Cortex-M0/M0+): clang 14 gives that target no
 * lock-free size at all (it has no exclusive loads and stores), so every C11 atomic of the core,
 * which only loads and stores, becomes a call of the C library's __atomic_load_N/__atomic_store_N,
 * which bare-metal firmware has no library for. An aligned load or store of 1, 2 or 4 bytes is
 * single-copy atomic on the core; the orders above relaxed get a `dmb` (before a store, after a
 * load). Weak: a firmware's own libatomic takes precedence. Nothing is built for other targets
 * (gcc makes loads and stores inline there; clang 16 and later do too, and then never call these).
 * The build needs -Wno-atomic-alignment with clang on ARMv6-M (port/arm/README.md). */
#include <stdint.h>

#if defined(__clang__) && defined(__ARM_ARCH_6M__)
#define ORDERED(order) ((order) != __ATOMIC_RELAXED)
#define FENCE() __asm__ volatile("dmb" : : : "memory")

#define MSAMP_ARM_ATOMIC(n, type)                                                                  \
    type msamp_arm_atomic_load_##n(const volatile void *p, int order) __asm__("__atomic_load_" #n) \
        __attribute__((weak));                                                                     \
    void msamp_arm_atomic_store_##n(volatile void *p, type v, int order)                           \
        __asm__("__atomic_store_" #n) __attribute__((weak));                                       \
    type msamp_arm_atomic_load_##n(const volatile void *p, int order)                              \
    {                                                                                              \
        type v = *(const volatile type *)p;                                                        \
        if (ORDERED(order))                                                                        \
            FENCE();                                                                               \
        return v;                                                                                  \
    }                                                                                              \
    void msamp_arm_atomic_store_##n(volatile void *p, type v, int order)                           \
    {                                                                                              \
        if (ORDERED(order))                                                                        \
            FENCE();                                                                               \
        *(volatile type *)p = v;                                                                   \
        if (order == __ATOMIC_SEQ_CST)                                                             \
            FENCE();                                                                               \
    }
MSAMP_ARM_ATOMIC(1, uint8_t)
MSAMP_ARM_ATOMIC(2, uint16_t)
MSAMP_ARM_ATOMIC(4, uint32_t)
#else
typedef int msamp_arm_atomic_v6m_unused; /* inline loads and stores on this target */
#endif
