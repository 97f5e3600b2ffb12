/* The devices QEMU's ARM "virt" machines share, AArch64 (qemu-virt-aarch64) and 32-bit ARM
 * (qemu-virt-arm): a GICv2 distributor and CPU interface. Header only; each
 * virt board includes it and keeps its CPU-specific code (interrupt masks, timer registers). */
#ifndef QEMU_VIRT_H
#define QEMU_VIRT_H

#include <stdint.h>

#define VIRT_GICD_BASE 0x08000000u
#define VIRT_GICC_BASE 0x08010000u
#define VIRT_GICD_CTLR 0x000u
#define VIRT_GICD_ISENABLER0 0x100u
#define VIRT_GICD_ICENABLER0 0x180u
#define VIRT_GICD_IPRIORITYR 0x400u
#define VIRT_GICC_CTLR 0x000u
#define VIRT_GICC_PMR 0x004u
#define VIRT_GICC_IAR 0x00cu
#define VIRT_GICC_EOIR 0x010u
#define VIRT_VTIMER_PPI 27u /* the virtual timer's private interrupt */
#define VIRT_SPURIOUS 1023u

static inline volatile uint32_t *virt_mmio32(uintptr_t addr)
{
    return (volatile uint32_t *)addr;
}

/* Distributor and CPU interface on, every priority let through. */
static inline void virt_gic_init(void)
{
    *virt_mmio32(VIRT_GICD_BASE + VIRT_GICD_CTLR) = 1;
    *virt_mmio32(VIRT_GICC_BASE + VIRT_GICC_PMR) = 0xf0;
    *virt_mmio32(VIRT_GICC_BASE + VIRT_GICC_CTLR) = 1;
}

/* Enables private interrupt id (0..31) at a priority. */
static inline void virt_gic_enable_ppi(unsigned id, uint8_t priority)
{
    *(volatile uint8_t *)(uintptr_t)(VIRT_GICD_BASE + VIRT_GICD_IPRIORITYR + id) = priority;
    *virt_mmio32(VIRT_GICD_BASE + VIRT_GICD_ISENABLER0) = 1u << id;
}

static inline void virt_gic_disable_ppi(unsigned id)
{
    *virt_mmio32(VIRT_GICD_BASE + VIRT_GICD_ICENABLER0) = 1u << id;
}

/* Acknowledges the pending interrupt: returns IAR (its id in the low 10 bits). */
static inline uint32_t virt_gic_ack(void)
{
    return *virt_mmio32(VIRT_GICC_BASE + VIRT_GICC_IAR);
}

/* Ends an acknowledged interrupt (nothing for a spurious one). */
static inline void virt_gic_end(uint32_t iar)
{
    if ((iar & 0x3ffu) != VIRT_SPURIOUS)
        *virt_mmio32(VIRT_GICC_BASE + VIRT_GICC_EOIR) = iar;
}

#endif
