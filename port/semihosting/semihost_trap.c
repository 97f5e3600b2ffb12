/* msamp_semihost_call(): the trap that hands an ARM semihosting operation to the debug host, on
 * every architecture that speaks ARM semihosting. Operation in the first argument register,
 * parameter block in the second, the host's result back in the first. */
#include <stdint.h>

#include "msamp_semihost.h"

#if defined(__aarch64__)
#define REG_OP "x0"
#define REG_ARG "x1"
#define TRAP "hlt #0xf000"
#define CLOBBERS "memory"
#elif defined(__arm__)
#define REG_OP "r0"
#define REG_ARG "r1"
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define TRAP "bkpt 0xab"
#define CLOBBERS "memory"
#else
/* A-profile: a supervisor call, which clobbers SVC mode's lr. */
#if defined(__thumb__)
#define TRAP "svc 0xab"
#else
#define TRAP "svc 0x123456"
#endif
#define CLOBBERS "memory", "lr"
#endif
#elif defined(__riscv)
#define REG_OP "a0"
#define REG_ARG "a1"
/* An ebreak framed by two marker instructions, uncompressed and in one 16-byte aligned block, so
 * a debugger (or QEMU) recognises it. */
#define TRAP ".option push\n\t.option norvc\n\t.balign 16\n\tslli x0, x0, 0x1f\n\tebreak\n\t" \
             "srai x0, x0, 7\n\t.option pop"
#define CLOBBERS "memory"
#else
#error "semihost_trap.c: ARM semihosting is for AArch64, ARM and RISC-V (MIPS has uhi.c)"
#endif

uintptr_t msamp_semihost_call(uintptr_t op, uintptr_t arg)
{
    register uintptr_t first __asm__(REG_OP) = op;
    register uintptr_t second __asm__(REG_ARG) = arg;
    __asm__ volatile(TRAP : "+r"(first) : "r"(second) : CLOBBERS);
    return first;
}
