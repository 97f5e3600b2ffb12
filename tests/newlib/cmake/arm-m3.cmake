# Toolchain file of tests/newlib/cmake: Cortex-M3 with Debian's arm-none-eabi-gcc and newlib. No
# -funwind-tables here: msamp_add_library's interface must bring it.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_FLAGS_INIT "-Os -g -mthumb -mcpu=cortex-m3 -mfloat-abi=soft")
set(CMAKE_ASM_FLAGS_INIT "-mthumb -mcpu=cortex-m3")
