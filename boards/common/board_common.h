/* What the boards share, in boards/common/board_port.c (every board links it): the semihosting
 * console and exit of the boards that have semihosting, the timer's bookkeeping and the report of
 * an unexpected exception. A board's board.c keeps what is its own: interrupt controller, timer
 * hardware, start-up. */
#ifndef BOARD_COMMON_H
#define BOARD_COMMON_H

#include <stdint.h>

/* 1 where port/semihosting/ serves the architecture: board_port.c then defines board_console()
 * (semihosting SYS_WRITE0) and board_exit() (semihosting exit); 0 on x86-64, whose board.c
 * defines its own (debug console port, isa-debug-exit). */
#if defined(__x86_64__)
#define BOARD_SEMIHOSTING 0
#else
#define BOARD_SEMIHOSTING 1
#endif

/* The function board_timer_start() set, for the board's interrupt handler to call (NULL when
 * stopped): called there, not through a helper, so that it runs in the handler's own frame. */
extern void (*board_timer_fn)(void);

/* The board's part of board_timer_start() (which checks its arguments and sets board_timer_fn
 * first): start its timer interrupt every period_us microseconds and unmask it. */
void board_timer_enable(uint32_t period_us);

/* The board's part of board_timer_stop() (which clears board_timer_fn after it): mask the timer
 * interrupt and stop the timer. */
void board_timer_disable(void);

/* The clock's share of msamp_port_entropy() (board_port.c, which adds the boot count): weak there,
 * msamp_port_time(); a firmware may define it to return a constant (no entropy). */
uint64_t board_entropy_clock(void);

/* One value of a fault report: its name as printed ("pc=", or "" for a bare value) and value. */
struct board_fault_field {
    const char *name;
    uint64_t value;
};

/* Prints "board: unexpected WHAT NAME0xVALUE ...\n" on the board's console, each value in `digits`
 * hex digits, and exits with status 99. For the exception handlers of start.S, before or without
 * any library. */
_Noreturn void board_fault_exit(const char *what, const struct board_fault_field *fields,
                                unsigned count, unsigned digits);
/* Called first by board_fault_exit: a firmware's own last word on a fault (weak, nothing by
 * default). tests/board/reset_fw.c's notes the reset to msamp (msamp_note_reset) and resets the
 * board, as a field firmware's fault handler would, instead of exiting. */
void board_fault_hook(const char *what);

#endif
