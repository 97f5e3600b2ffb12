/* The RISC-V 32 bare-metal port's own parts: the mstatus.MIE lock and the 64-bit time counter read
 * in two halves. From port/common/ (port.mk): the frame walk (records in msamp_frame_layout.h),
 * contexts by trap nesting, the build-id. */
#include <stdint.h>

#include "msamp_port.h"
#include "msamp_port_shapes.h"
#include "msamp_riscv32.h"

#if !defined(__riscv) || __riscv_xlen != 32
#error "port/riscv32 is for RV32 targets (-march=rv32..., -mabi=ilp32)"
#endif

#define MSTATUS_MIE 0x8u

MSAMP_PORT_LOCK_BIT("csrrci %0, mstatus, 8", "csrsi mstatus, 8", MSTATUS_MIE)

uint64_t msamp_port_time(void)
{
    uint32_t hi, lo, again;
    do {
        __asm__ volatile("rdtimeh %0\n\trdtime %1\n\trdtimeh %2" : "=r"(hi), "=r"(lo), "=r"(again) : : "memory");
    } while (hi != again);
    return (uint64_t)hi << 32 | lo;
}

uint64_t msamp_port_time_hz(void)
{
    return MSAMP_RISCV32_TIME_HZ;
}
