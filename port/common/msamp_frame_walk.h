/*
 * The frame-chain walker of every port whose code keeps frame records (x86-64, AArch64, RISC-V,
 * ARM with clang or gcc's ARM-state frames, hosted Linux): from a frame register value, read the
 * caller's frame register and the return address saved around it, report the return address,
 * move to the caller's frame, until the callback says stop or a check fails.
 *
 * Every load is checked before it is made: the record aligned to a word and wholly inside
 * [stack_lo, stack_hi); each next frame strictly above the last; the return address nonzero and
 * inside [text_lo, text_hi) (any nonzero one when both are 0), and below MSAMP_FRAME_TEXT_END; at
 * most MSAMP_FRAME_WALK_MAX records, whatever the callback says.
 *
 * A port says where its records sit in msamp_frame_layout.h, a header of its own folder (on the
 * include path with port/common/):
 *   MSAMP_FRAME_PREV, MSAMP_FRAME_RA  the caller's frame register and the return address, in words
 *                         from the frame register: x86-64, AArch64 and ARM clang {0, +1}, RISC-V
 *                         {-2, -1} (the frame register is the CFA), gcc ARM state {-1, 0},
 *                         gcc -mapcs-frame {-3, -1}. Not defined: the code keeps no frame chain,
 *                         and this walker is not built;
 *   MSAMP_FRAME_PC(ra)    optional: the pc reported for a saved return address (ARM: the Thumb
 *                         bit cleared);
 *   MSAMP_FRAME_TEXT_END  optional: no return address lies at or above it (Cortex-M: EXC_RETURN
 *                         values, 0xFxxxxxxx);
 *   MSAMP_FRAME_PORT_WALK 1: msamp_frame_walk.c defines msamp_port_walk() for bare metal, over the
 *                         bounds the link gives (__msamp_stack_lo/hi, __msamp_text_lo/hi, the
 *                         latter two optional) and above the walker's own frame (below it the
 *                         stack is dead: a caller that tail-called the walker passes a frame that
 *                         no longer exists). 0: the port defines msamp_port_walk() itself.
 */
#ifndef MSAMP_FRAME_WALK_H
#define MSAMP_FRAME_WALK_H

#include <stdint.h>

#include "msamp_frame_layout.h"
#include "msamp_link_bounds.h"
#include "msamp_port.h"

#ifndef MSAMP_FRAME_PC
#define MSAMP_FRAME_PC(ra) (ra)
#endif
#ifndef MSAMP_FRAME_TEXT_END
#define MSAMP_FRAME_TEXT_END UINTPTR_MAX
#endif
#ifndef MSAMP_FRAME_PORT_WALK
#define MSAMP_FRAME_PORT_WALK 1
#endif
/* Hard cap on records read by one walk. */
#ifndef MSAMP_FRAME_WALK_MAX
#define MSAMP_FRAME_WALK_MAX 256
#endif

#if defined(MSAMP_FRAME_RA)
/* Bytes of a record below the frame register and from it up: [fp - BELOW, fp + ABOVE). */
#define MSAMP_FRAME_LOW (MSAMP_FRAME_PREV < MSAMP_FRAME_RA ? MSAMP_FRAME_PREV : MSAMP_FRAME_RA)
#define MSAMP_FRAME_HIGH (MSAMP_FRAME_PREV > MSAMP_FRAME_RA ? MSAMP_FRAME_PREV : MSAMP_FRAME_RA)
#define MSAMP_FRAME_BELOW ((uintptr_t)(MSAMP_FRAME_LOW < 0 ? -MSAMP_FRAME_LOW : 0) * sizeof(uintptr_t))
#define MSAMP_FRAME_ABOVE ((uintptr_t)(MSAMP_FRAME_HIGH < 0 ? 0 : MSAMP_FRAME_HIGH + 1) * sizeof(uintptr_t))
#endif

/* Walks the chain from frame register value fp, records inside b's stack and return addresses
 * inside its code (msamp_link_bounds.h): reports each return address until fn returns 0 or a
 * check fails. Returns the number of pcs reported. */
unsigned msamp_frame_walk(uintptr_t fp, const struct msamp_bounds *b, msamp_frame_fn fn, void *arg);

#endif
