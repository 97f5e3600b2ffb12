/*
 * The board API: what a board's board.c supplies to firmware running on it (the demo, the board
 * tests). Not part of the msamp library: a firmware project has its own board support and links
 * msamp without this header. See boards/README.md.
 */
#ifndef BOARD_API_H
#define BOARD_API_H

#include <stddef.h>
#include <stdint.h>

/* Bring up what the board needs before main() work: exception vectors, interrupt controller,
 * console. Called once from main(), with interrupts masked. */
void board_init(void);

/* Write text for a human or a test script, kept off msamp's binary stream (semihosting console on
 * boards that have it, otherwise the UART). */
void board_console(const char *text);

/* End the run: QEMU exits with `status` (0..255). Never returns. */
_Noreturn void board_exit(int status);

/* Mask interrupts and return the previous mask; restore it. Nestable. For the firmware's own heap
 * and data shared with interrupt handlers. */
uintptr_t board_irq_save(void);
void board_irq_restore(uintptr_t saved);

/* Call fn in interrupt context every period_us microseconds, and unmask interrupts. Returns 0, or
 * a negative value when the board has no timer interrupt. board_timer_stop() masks it again. */
int board_timer_start(uint32_t period_us, void (*fn)(void));
void board_timer_stop(void);

/* Boots since the last power-on: 0 after a cold boot, one more after each warm reset (kept in the
 * linker script's .noinit section; boards/README.md). msamp's session id mixes it in. */
uint32_t board_boot_count(void);

/* A free-running tick counter and its rate in Hz. */
uint64_t board_ticks(void);
uint64_t board_tick_hz(void);

/* Writes the low `digits` hex digits of v, lowercase, without a terminator: for the fault
 * messages boards print before any library is available. */
static inline void board_put_hex(char *out, uint64_t v, unsigned digits)
{
    for (unsigned i = digits; i-- > 0; v >>= 4)
        out[i] = "0123456789abcdef"[v & 15u];
}

/* Writes v in decimal without a terminator (1 to 20 digits); returns how many it wrote. */
static inline unsigned board_put_dec(char *out, uint64_t v)
{
    char tmp[20];
    unsigned n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0);
    for (unsigned i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

#endif
