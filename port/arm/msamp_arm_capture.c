/* msamp_arm_capture(regs): stores its caller's r4-r11, sp, and lr as both lr and pc, for the exidx
 * walker to unwind from (tests/ports/walk_test.c's, and msamp_port_walk's below). A leaf that changes nothing the caller keeps (r1, a scratch register, is
 * its only work register), so the caller's state is exact. Written in assembly (in the file's own
 * instruction set) because no C function can see its caller's registers. The Thumb form uses only
 * Thumb-1 instructions: ARMv6-M and ARMv8-M baseline (Cortex-M0/M0+/M23) have no `str` of a high
 * register (r8-r11, lr), so those go through r1; ARM state and Thumb-2 take the same code. */
#include "msamp_arm.h"

#if defined(__thumb__)
#define THUMB_FUNC ".thumb_func\n"
#else
#define THUMB_FUNC ""
#endif

__asm__(".pushsection .text.msamp_arm_capture, \"ax\", %progbits\n"
        ".syntax unified\n"
        ".balign 4\n"
        ".global msamp_arm_capture\n"
        ".type msamp_arm_capture, %function\n" THUMB_FUNC
        "msamp_arm_capture:\n"
        "  str r4, [r0, #16]\n"
        "  str r5, [r0, #20]\n"
        "  str r6, [r0, #24]\n"
        "  str r7, [r0, #28]\n"
        "  mov r1, r8\n"
        "  str r1, [r0, #32]\n"
        "  mov r1, r9\n"
        "  str r1, [r0, #36]\n"
        "  mov r1, r10\n"
        "  str r1, [r0, #40]\n"
        "  mov r1, r11\n"
        "  str r1, [r0, #44]\n"
        "  mov r1, sp\n"
        "  str r1, [r0, #52]\n"
        "  mov r1, lr\n"
        "  str r1, [r0, #56]\n"
        "  str r1, [r0, #60]\n"
        "  bx lr\n"
        ".size msamp_arm_capture, . - msamp_arm_capture\n"
        ".popsection\n");

#if MSAMP_ARM_UNWINDER == MSAMP_ARM_UNWIND_EXIDX
/* msamp_port_walk(frame, fn, arg) for the exidx walker: the same capture, of its caller's state on
 * entry (the caller's r4-r11 and sp, lr as its pc), into a register set on its own stack, then
 * msamp_arm_walk_regs(regs, frame, fn, arg) (msamp_port_arm.c). The walk starts in the caller: no
 * step of its own, which a C function's would cost (an unwind-cache lookup and its rule's pops, a
 * tenth of a walk of a dozen frames on the Cortex-M3). r0-r3 and r12 read as 0: not preserved
 * across calls, and no opcode of ours needs them. Its own unwind entry (.save, .pad) lets a walk
 * that starts inside it (none does) step out of it. */
__asm__(".pushsection .text.msamp_port_walk, \"ax\", %progbits\n"
        ".syntax unified\n"
        ".balign 4\n"
        ".global msamp_port_walk\n"
        ".type msamp_port_walk, %function\n" THUMB_FUNC
        "msamp_port_walk:\n"
        "  .fnstart\n"
        "  push {r4, lr}\n"
        "  .save {r4, lr}\n"
        "  sub sp, #64\n"
        "  .pad #64\n"
        "  mov r3, r2\n" /* arg, fn, frame: the 4th, 3rd and 2nd arguments */
        "  mov r2, r1\n"
        "  mov r1, r0\n"
        "  mov r0, sp\n" /* regs */
        "  str r4, [r0, #16]\n"
        "  str r5, [r0, #20]\n"
        "  str r6, [r0, #24]\n"
        "  str r7, [r0, #28]\n"
        "  mov r4, r8\n"
        "  str r4, [r0, #32]\n"
        "  mov r4, r9\n"
        "  str r4, [r0, #36]\n"
        "  mov r4, r10\n"
        "  str r4, [r0, #40]\n"
        "  mov r4, r11\n"
        "  str r4, [r0, #44]\n"
        "  add r4, sp, #72\n" /* the caller's sp: above the 64 bytes and the two saved words */
        "  str r4, [r0, #52]\n"
        "  mov r4, lr\n"
        "  str r4, [r0, #56]\n"
        "  str r4, [r0, #60]\n"
        "  movs r4, #0\n"
        "  str r4, [r0, #0]\n"
        "  str r4, [r0, #4]\n"
        "  str r4, [r0, #8]\n"
        "  str r4, [r0, #12]\n"
        "  str r4, [r0, #48]\n"
        "  bl msamp_arm_walk_regs\n"
        "  add sp, #64\n"
        "  pop {r4, pc}\n"
        "  .fnend\n"
        ".size msamp_port_walk, . - msamp_port_walk\n"
        ".popsection\n");
#endif
