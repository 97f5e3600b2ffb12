/* The reset test's firmware (tests/board/t_reset.sh, board_reset.mk): a profile that survives a
 * reset. Boot 0 (the board's boot counter) samples every allocation (interval 1, pinned) of a
 * known live set: keep_small 120 x 48 B, keep_big 8 x 1000 B, keep_mid 40 x 200 B made and then
 * half freed, a temporary 30 x 64 B freed (not in use): 148 LIVE records, more than the ring
 * (512 bytes in this test's library) holds. It flushes the stream, writes the .noinit section (msamp's block and
 * tables) as it is to ram.bin by semihosting (its address in ram.addr: drain --ram's image, the
 * RAM dump taken just before the reset), then resets the board itself: RESET_FW_FAULT 0, msamp_note_reset(SOFTWARE)
 * then the reset (Cortex-M: SCB AIRCR SYSRESETREQ; AArch64 virt: PSCI SYSTEM_RESET by hvc);
 * RESET_FW_FAULT 1, an undefined instruction, whose exception handler (board_fault_hook) notes
 * FAULT and resets. Boot 1: msamp_init sends the previous session from the kept block, then a few
 * allocations of its own, msamp_end, exit 0. RESET_FW_BOOTS 1: one boot, no reset (a cold boot
 * over garbage). */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "common/board_common.h"
#include "msamp.h"
#include "msamp_semihost.h"

/* The demo's heap (boards/examples/demo/demo_heap.c), through msamp's wrappers. */
void *malloc(size_t n);
void free(void *p);

#ifndef RESET_FW_FAULT
#define RESET_FW_FAULT 0
#endif
#ifndef RESET_FW_BOOTS
#define RESET_FW_BOOTS 2
#endif

static void *keep[400];
static unsigned nkeep;

/* The demo's heap (boards/examples/demo/demo_heap.c) calls it on a damaged heap. */
_Noreturn void demo_fail(const char *what);
_Noreturn void demo_fail(const char *what)
{
    board_console("reset-fw FAIL: ");
    board_console(what);
    board_console("\n");
    board_exit(1);
}
#define fail demo_fail

static void hold(void *p)
{
    if (p == NULL || nkeep >= sizeof keep / sizeof keep[0])
        fail("malloc");
    keep[nkeep++] = p;
    (void)msamp_poll(); /* a blocking UART: the ring never drops */
}

__attribute__((noinline)) static void keep_small(void)
{
    for (int i = 0; i < 120; i++)
        hold(malloc(48));
}

__attribute__((noinline)) static void keep_big(void)
{
    for (int i = 0; i < 8; i++)
        hold(malloc(1000));
}

__attribute__((noinline)) static void keep_mid(void)
{
    void *p[40];
    for (int i = 0; i < 40; i++)
        p[i] = malloc(200);
    for (int i = 0; i < 40; i++) {
        if (i % 2)
            free(p[i]);
        else
            hold(p[i]);
    }
}

__attribute__((noinline)) static void temporary(void)
{
    void *p[30];
    for (int i = 0; i < 30; i++)
        p[i] = malloc(64);
    for (int i = 0; i < 30; i++)
        free(p[i]);
}

__attribute__((noinline)) static void next_boot_work(void)
{
    for (int i = 0; i < 10; i++)
        hold(malloc(32));
}

/* The .noinit section's bounds (board_reset.mk's --defsym): msamp's block and tables, the boot
 * counters. */
extern char __reset_noinit_lo[], __reset_noinit_hi[];

/* .noinit as it is: ram.bin (drain --ram's image: the RAM dump just before the reset; the
 * cold-boot runs load it back), and its address in ram.addr. */
static void dump_ram(void)
{
    uintptr_t lo = (uintptr_t)__reset_noinit_lo, hi = (uintptr_t)__reset_noinit_hi;
    intptr_t h = msamp_semihost_open_write("ram.bin");
    if (h < 0 || msamp_semihost_write(h, (const void *)lo, hi - lo) != 0)
        fail("ram.bin");
    msamp_semihost_close(h);
    char text[24];
    board_put_hex(text, lo, 2 * sizeof(uintptr_t));
    text[2 * sizeof(uintptr_t)] = '\n';
    h = msamp_semihost_open_write("ram.addr");
    if (h < 0 || msamp_semihost_write(h, text, 2 * sizeof(uintptr_t) + 1) != 0)
        fail("ram.addr");
    msamp_semihost_close(h);
}

static _Noreturn void reset_board(void)
{
#if defined(__aarch64__)
    register uint64_t x0 __asm__("x0") = 0x84000009u; /* PSCI SYSTEM_RESET */
    __asm__ volatile("hvc #0" : "+r"(x0) : : "memory");
#elif defined(__arm__)
    __asm__ volatile("dsb" : : : "memory");
    *(volatile uint32_t *)0xE000ED0Cu = 0x05FA0004u; /* AIRCR: VECTKEY, SYSRESETREQ */
    __asm__ volatile("dsb" : : : "memory");
#endif
    for (;;) {
    }
}

/* The fault's exception handler (board_fault_exit): a field firmware's last word. */
void board_fault_hook(const char *what)
{
    (void)what;
    board_console("reset-fw fault: noted, resetting\n");
    msamp_note_reset(MSAMP_RESET_FAULT);
    reset_board();
}

int main(void)
{
    board_init();
    uint32_t boot = board_boot_count();
    struct msamp_config cfg = {0};
    cfg.interval = 1;
    cfg.pin_interval = 1;
    if (msamp_init(&cfg) != 0)
        fail("msamp_init");
    board_console(boot == 0 ? "reset-fw boot 0\n" : "reset-fw boot 1\n");
    if (boot == 0 && RESET_FW_BOOTS > 1) {
        keep_small();
        keep_big();
        keep_mid();
        temporary();
        if (msamp_flush() < 0)
            fail("msamp_flush");
        dump_ram();
        board_console("reset-fw dumped, resetting\n");
        if (RESET_FW_FAULT)
            __builtin_trap();
        msamp_note_reset(MSAMP_RESET_SOFTWARE);
        reset_board();
    }
    next_boot_work();
    if (msamp_end() < 0)
        fail("msamp_end");
    board_console("reset-fw done\n");
    board_exit(0);
}
