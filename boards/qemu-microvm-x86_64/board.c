/* qemu-microvm-x86_64 board API: 8259 PIC + 8254 PIT timer interrupt, the debug console
 * port 0xe9 for text, isa-debug-exit; the TSC rate measured against the PIT. */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "common/board_common.h"
#include "msamp_irq_contexts.h"
#include "msamp_port.h"
#include "msamp_x86_64.h"

void board_setup_idt(void);
void board_irq_handler(void);
_Noreturn void board_fault(uint64_t rip);
void irq_entry(void);
void fault_entry(void);
int main(void);

#define DEBUGCON 0xe9u
#define DEBUG_EXIT 0xf4u
#define PIC1_CMD 0x20u
#define PIC1_DATA 0x21u
#define PIC2_CMD 0xa0u
#define PIC2_DATA 0xa1u
#define PIT_CH0 0x40u
#define PIT_CMD 0x43u
#define PIT_HZ 1193182u
#define TIMER_VECTOR 32u
#define LAPIC_SVR 0xfee000f0u
#define LAPIC_LINT0 0xfee00350u
#define LAPIC_LINT1 0xfee00360u


static void outb(uint16_t port, uint8_t v)
{
    __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

struct idt_entry {
    uint16_t off_lo, selector;
    uint8_t ist, type;
    uint16_t off_mid;
    uint32_t off_hi, zero;
};
static struct idt_entry idt[48];

static void idt_set(unsigned v, void (*handler)(void))
{
    uintptr_t a = (uintptr_t)handler;
    idt[v].off_lo = (uint16_t)a;
    idt[v].selector = 0x08;
    idt[v].ist = 0;
    idt[v].type = 0x8e; /* present, interrupt gate: IF cleared on entry */
    idt[v].off_mid = (uint16_t)(a >> 16);
    idt[v].off_hi = (uint32_t)(a >> 32);
    idt[v].zero = 0;
}

void board_setup_idt(void)
{
    struct __attribute__((packed)) {
        uint16_t limit;
        uint64_t base;
    } ptr = {sizeof idt - 1, (uint64_t)(uintptr_t)idt};
    for (unsigned v = 0; v < 48; v++)
        idt_set(v, v == TIMER_VECTOR ? irq_entry : fault_entry);
    __asm__ volatile("lidt %0" : : "m"(ptr));
}

/* PIT channel 0 count, latched. */
static uint16_t pit_count(void)
{
    outb(PIT_CMD, 0x00);
    uint8_t lo = inb(PIT_CH0);
    return (uint16_t)(lo | inb(PIT_CH0) << 8);
}

static void pit_periodic(uint16_t divisor)
{
    outb(PIT_CMD, 0x34); /* channel 0, lo/hi, mode 2 */
    outb(PIT_CH0, (uint8_t)divisor);
    outb(PIT_CH0, (uint8_t)(divisor >> 8));
}

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

/* The TSC rate: TSC ticks over 20 PIT periods of 1 ms, counted by the PIT's wraps. */
static void calibrate_tsc(void)
{
    const uint16_t div = PIT_HZ / 1000u;
    pit_periodic(div);
    uint16_t last = pit_count();
    unsigned wraps = 0;
    uint64_t t0 = 0;
    for (unsigned polls = 0; wraps < 21 && polls < 50000000u; polls++) {
        uint16_t c = pit_count();
        if (c > last) {
            if (wraps == 0)
                t0 = rdtsc();
            wraps++;
        }
        last = c;
    }
    if (wraps == 21)
        msamp_x86_64_set_tsc_hz((rdtsc() - t0) * 1000u / 20u);
}

void board_init(void)
{
    __asm__ volatile("cli");
    /* PIC: vectors 32..47, every line masked but the timer's when it starts */
    outb(PIC1_CMD, 0x11);
    outb(PIC2_CMD, 0x11);
    outb(PIC1_DATA, TIMER_VECTOR);
    outb(PIC2_DATA, TIMER_VECTOR + 8);
    outb(PIC1_DATA, 4);
    outb(PIC2_DATA, 2);
    outb(PIC1_DATA, 1);
    outb(PIC2_DATA, 1);
    outb(PIC1_DATA, 0xff);
    outb(PIC2_DATA, 0xff);
    /* The local APIC on, passing the PIC's interrupts through LINT0 (ExtINT), NMI on LINT1. */
    *(volatile uint32_t *)LAPIC_SVR = 0x1ffu;
    *(volatile uint32_t *)LAPIC_LINT0 = 0x700u;
    *(volatile uint32_t *)LAPIC_LINT1 = 0x400u;
    calibrate_tsc();
}

void board_console(const char *text)
{
    for (const char *s = text; *s != '\0'; s++)
        outb(DEBUGCON, (uint8_t)*s);
}

/* Status 0: a reset, which -no-reboot turns into QEMU exiting with 0; any other status through
 * isa-debug-exit, which exits with (status << 1) | 1. */
_Noreturn void board_exit(int status)
{
    __asm__ volatile("cli");
    if ((status & 0xff) != 0)
        outb(DEBUG_EXIT, (uint8_t)status);
    struct __attribute__((packed)) {
        uint16_t limit;
        uint64_t base;
    } none = {0, 0};
    __asm__ volatile("lidt %0\n\tint3" : : "m"(none));
    for (;;)
        __asm__ volatile("hlt");
}

_Noreturn void board_fault(uint64_t rip)
{
    const struct board_fault_field f[] = {{"at ", rip}};
    board_fault_exit("exception", f, 1, 16);
}

void board_timer_enable(uint32_t period_us)
{
    uint64_t div = (uint64_t)PIT_HZ * period_us / 1000000u;
    pit_periodic(div == 0 ? 1 : div > 0xffff ? 0xffff : (uint16_t)div);
    outb(PIC1_DATA, 0xfe);
    __asm__ volatile("sti" : : : "memory");
}

void board_timer_disable(void)
{
    __asm__ volatile("cli" : : : "memory");
    outb(PIC1_DATA, 0xff);
}

/* Called from irq_entry (start.S) for the timer, IF clear. */
void board_irq_handler(void)
{
    msamp_irq_enter();
    if (board_timer_fn != NULL)
        board_timer_fn();
    outb(PIC1_CMD, 0x20); /* end of interrupt */
    msamp_irq_exit();
}
