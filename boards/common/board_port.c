/* What the boards share (boards/common/board_common.h); every board links this file. The board
 * API's interrupt mask and clock, from the port: its critical section and timestamp source are
 * exactly what the board API asks for. The timer's bookkeeping: board_timer_start() and
 * board_timer_stop() around the board's board_timer_enable() and board_timer_disable(). The
 * console and exit through semihosting, on the boards that have it. The report of an unexpected
 * exception. */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "common/board_common.h"
#include "msamp_port.h"
#if BOARD_SEMIHOSTING
#include "msamp_semihost.h"
#endif

uintptr_t board_irq_save(void)
{
    return msamp_port_lock();
}

void board_irq_restore(uintptr_t saved)
{
    msamp_port_unlock(saved);
}

uint64_t board_ticks(void)
{
    return msamp_port_time();
}

uint64_t board_tick_hz(void)
{
    return msamp_port_time_hz();
}

/* The boot counter, in .noinit (every board's link.ld has the section after .bss: neither loaded
 * from the image nor zeroed by the start code), so a warm reset (a watchdog's, a debugger's, QEMU's
 * system_reset) finds the previous boot's count. After power-on the words hold whatever the RAM
 * came up with: unless the magic is there and the check word is the count's complement, the count
 * starts again at 0. */
#define BOARD_BOOT_MAGIC 0x746f6f62u /* "boot" */
static struct {
    uint32_t magic, count, check;
} board_boot __attribute__((section(".noinit")));
static uint32_t board_boots; /* this boot's count + 1, 0 until read (in .bss: zeroed each boot) */

uint32_t board_boot_count(void)
{
    if (board_boots == 0) {
        uint32_t n = 0;
        if (board_boot.magic == BOARD_BOOT_MAGIC && board_boot.check == ~board_boot.count)
            n = board_boot.count + 1u;
        board_boot.count = n;
        board_boot.check = ~n;
        board_boot.magic = BOARD_BOOT_MAGIC;
        board_boots = n + 1u;
    }
    return board_boots - 1u;
}

/* The clock's share of the session id's entropy (the time at msamp_init). Weak: a firmware that
 * plays a device with no entropy at all (the demo's faults-boots variant) returns a constant. */
__attribute__((weak)) uint64_t board_entropy_clock(void)
{
    return msamp_port_time();
}

/* msamp's entropy (msamp_port.h): the clock and the boot count, so two boots of a device whose
 * clock starts alike at every reset still draw different session ids. */
uint64_t msamp_port_entropy(void)
{
    return board_entropy_clock() ^ (uint64_t)board_boot_count() * 0x9E3779B97F4A7C15ull;
}

void (*board_timer_fn)(void);

int board_timer_start(uint32_t period_us, void (*fn)(void))
{
    if (fn == NULL || period_us == 0)
        return -1;
    board_timer_fn = fn;
    board_timer_enable(period_us);
    return 0;
}

void board_timer_stop(void)
{
    board_timer_disable();
    board_timer_fn = NULL;
}

#if BOARD_SEMIHOSTING
void board_console(const char *text)
{
    msamp_semihost_console(text);
}

_Noreturn void board_exit(int status)
{
    msamp_semihost_exit(status & 0xff);
    for (;;) {
#if defined(__mips__)
        __asm__ volatile("wait");
#else
        __asm__ volatile("wfi");
#endif
    }
}
#endif

/* Appends text to line[*len], leaving room for the "\n" and terminator. */
static void fault_put(char *line, size_t size, size_t *len, const char *text)
{
    while (*text != '\0' && *len < size - 2)
        line[(*len)++] = *text++;
}

__attribute__((weak)) void board_fault_hook(const char *what)
{
    (void)what;
}

_Noreturn void board_fault_exit(const char *what, const struct board_fault_field *fields,
                                unsigned count, unsigned digits)
{
    board_fault_hook(what);
    char line[128];
    char hex[17];
    size_t len = 0;
    if (digits > sizeof hex - 1)
        digits = sizeof hex - 1;
    fault_put(line, sizeof line, &len, "board: unexpected ");
    fault_put(line, sizeof line, &len, what);
    for (unsigned i = 0; i < count; i++) {
        fault_put(line, sizeof line, &len, " ");
        fault_put(line, sizeof line, &len, fields[i].name);
        fault_put(line, sizeof line, &len, "0x");
        board_put_hex(hex, fields[i].value, digits);
        hex[digits] = '\0';
        fault_put(line, sizeof line, &len, hex);
    }
    line[len++] = '\n';
    line[len] = '\0';
    board_console(line);
    board_exit(99);
}
