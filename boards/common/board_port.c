/* The board API's interrupt mask and clock, for boards whose port already provides both: the
 * port's critical section and timestamp source are exactly what the board API asks for. */
#include <stdint.h>

#include "board_api.h"
#include "msamp_port.h"

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
