/* msamp_arm_capture(regs): stores its caller's r4-r11, sp, and lr as both lr and pc, for the exidx
 * walker to unwind from. A leaf that changes nothing the caller keeps (r1, a scratch register, is
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
