# Toolchain file of the C++ firmware's CMake build (tests/cxx/fw/CMakeLists.txt): QEMU's Cortex-M3
# board with Debian's arm-none-eabi gcc, newlib and its libstdc++.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_STANDARD 11)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_C_FLAGS_INIT "-mthumb -mcpu=cortex-m3 -mfloat-abi=soft -O2 -g")
set(CMAKE_CXX_FLAGS_INIT "-mthumb -mcpu=cortex-m3 -mfloat-abi=soft -O2 -g")
set(CMAKE_ASM_FLAGS_INIT "-mthumb -mcpu=cortex-m3")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-mthumb -mcpu=cortex-m3 -mfloat-abi=soft")
