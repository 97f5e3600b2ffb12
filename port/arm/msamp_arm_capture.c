/* msamp_arm_capture(regs): stores its caller's r4-r11, sp, and lr as both lr and pc, for the exidx
 * walker to unwind from. A leaf that changes nothing, so the caller's state is exact. Written in
 * assembly (in the file's own instruction set) because no C function can see its caller's
 * registers. */
#include "msamp_arm.h"

#if defined(__thumb__)
#define THUMB_FUNC ".thumb_func\n"
#else
#define THUMB_FUNC ""
#endif

__asm__(".pushsection .text.msamp_arm_capture, \"ax\", %progbits\n"
        ".balign 4\n"
        ".global msamp_arm_capture\n"
        ".type msamp_arm_capture, %function\n" THUMB_FUNC
        "msamp_arm_capture:\n"
        "  str r4, [r0, #16]\n"
        "  str r5, [r0, #20]\n"
        "  str r6, [r0, #24]\n"
        "  str r7, [r0, #28]\n"
        "  str r8, [r0, #32]\n"
        "  str r9, [r0, #36]\n"
        "  str r10, [r0, #40]\n"
        "  str r11, [r0, #44]\n"
        "  mov r1, sp\n"
        "  str r1, [r0, #52]\n"
        "  str lr, [r0, #56]\n"
        "  str lr, [r0, #60]\n"
        "  bx lr\n"
        ".size msamp_arm_capture, . - msamp_arm_capture\n"
        ".popsection\n");
