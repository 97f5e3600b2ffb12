# msamp for a firmware project's CMake build. Include this file, then create the library:
#
#   include(third_party/msamp/port/msamp.cmake)
#   msamp_add_library(msamp
#       ARCH aarch64                      # port folder under port/
#       TRANSPORT pl011                   # a file of port/transport/ without .c, or none
#       DEFINITIONS MSAMP_PL011_BASE=0x09000000 MSAMP_CONFIG_FILE="my_msamp_config.h"
#       INCLUDES ${CMAKE_CURRENT_SOURCE_DIR}/config       # where MSAMP_CONFIG_FILE is
#       WRAP malloc free calloc realloc   # allocator functions to wrap (this is the default)
#       PROFILE full)                     # full (default) or tiny: the core's profile (docs/TINY.md)
#   target_link_libraries(firmware.elf PRIVATE msamp)
#
# The static library holds the core, every wrapper, the port and the transport. Linking it gives
# the firmware msamp's include paths, -fno-omit-frame-pointer (msamp's own sources but the
# wrappers and hooks are built without frame pointers), and the link options
# -Wl,--wrap=FUNC for each WRAP function plus -Wl,--build-id. The project's toolchain file sets
# the compiler and CPU flags; for the .S files of a port, enable ASM in project() or
# enable_language(ASM) before calling msamp_add_library.
cmake_minimum_required(VERSION 3.13)
get_filename_component(MSAMP_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

function(msamp_add_library name)
    cmake_parse_arguments(M "" "ARCH;TRANSPORT;PROFILE" "DEFINITIONS;INCLUDES;WRAP" ${ARGN})
    if(NOT M_ARCH OR NOT IS_DIRECTORY "${MSAMP_DIR}/port/${M_ARCH}")
        message(FATAL_ERROR "msamp_add_library: ARCH must name a folder of ${MSAMP_DIR}/port")
    endif()
    if(NOT M_TRANSPORT)
        set(M_TRANSPORT none)
    endif()
    if(NOT M_WRAP)
        set(M_WRAP malloc free calloc realloc)
    endif()

    if(NOT M_PROFILE OR M_PROFILE STREQUAL "full")
        file(GLOB core "${MSAMP_DIR}/src/*.c" "${MSAMP_DIR}/src/wrap/*.c")
        set(profile_defs "")
    elseif(M_PROFILE STREQUAL "tiny")
        file(GLOB core "${MSAMP_DIR}/src/tiny/*.c" "${MSAMP_DIR}/src/wrap/*.c")
        foreach(f msamp_sampler msamp_port_defaults msamp_hooks msamp_note_realloc)
            list(APPEND core "${MSAMP_DIR}/src/${f}.c")
        endforeach()
        set(profile_defs MSAMP_CFG_TINY=1)
    else()
        message(FATAL_ERROR "msamp_add_library: PROFILE is full or tiny")
    endif()
    file(GLOB port "${MSAMP_DIR}/port/${M_ARCH}/*.c" "${MSAMP_DIR}/port/${M_ARCH}/*.S")
    if(NOT M_ARCH STREQUAL "hosted")
        file(GLOB common "${MSAMP_DIR}/port/common/*.c")  # build-id reader, contexts by IRQ nesting
        list(APPEND port ${common})
    endif()
    set(transport "")
    if(M_TRANSPORT STREQUAL "semihosting")
        set(transport "${MSAMP_DIR}/port/transport/semihosting.c" "${MSAMP_DIR}/port/transport/semihost.c")
    elseif(NOT M_TRANSPORT STREQUAL "none")
        set(transport "${MSAMP_DIR}/port/transport/${M_TRANSPORT}.c")
        if(NOT EXISTS "${transport}")
            message(FATAL_ERROR "msamp_add_library: unknown TRANSPORT ${M_TRANSPORT}")
        endif()
    endif()
    foreach(f IN LISTS M_WRAP)
        if(NOT EXISTS "${MSAMP_DIR}/src/wrap/wrap_${f}.c")
            message(FATAL_ERROR "msamp_add_library: no wrapper for ${f}")
        endif()
    endforeach()

    add_library(${name} STATIC ${core} ${port} ${transport})
    target_include_directories(${name}
        PUBLIC "${MSAMP_DIR}/include" "${MSAMP_DIR}/port/${M_ARCH}" "${MSAMP_DIR}/port/transport"
               "${MSAMP_DIR}/port/common"
        PRIVATE "${MSAMP_DIR}/src" ${M_INCLUDES})
    target_compile_definitions(${name} PRIVATE ${M_DEFINITIONS} ${profile_defs})
    target_compile_options(${name} PUBLIC -fno-omit-frame-pointer PRIVATE -ffreestanding)
    # msamp's sources but the wrappers and hooks need no frame pointers (port/msamp.mk says why).
    if(NOT M_ARCH STREQUAL "hosted")
        set(own ${core} ${port} ${transport})
        list(FILTER own EXCLUDE REGEX "/src/wrap/|/msamp_hooks\\.c$")
        set_source_files_properties(${own} PROPERTIES COMPILE_OPTIONS -fomit-frame-pointer)
    endif()
    list(JOIN M_WRAP ",--wrap=" wraps)
    target_link_options(${name} INTERFACE "LINKER:--wrap=${wraps}" "LINKER:--build-id")
endfunction()
