# msamp for a firmware project's CMake build. Include this file, then create the library:
#
#   include(third_party/msamp/port/msamp.cmake)
#   msamp_add_library(msamp
#       ARCH aarch64                      # port folder under port/
#       TRANSPORT pl011                   # a file of port/transport/ without .c, or none
#       DEFINITIONS MSAMP_PL011_BASE=0x09000000 MSAMP_CONFIG_FILE="my_msamp_config.h"
#       INCLUDES ${CMAKE_CURRENT_SOURCE_DIR}/config       # where MSAMP_CONFIG_FILE is
#       WRAP malloc free calloc realloc   # allocator functions to wrap (this is the default;
#                                         # cxx: every C++ operator new and delete, port/msamp.mk)
#       PROFILE full                      # full (default) or tiny: the core's profile (docs/TINY.md)
#       RTOS none                         # or freertos: the RTOS layer (docs/FREERTOS.md), whose
#       RTOS_TASKS 16                     # sources need FreeRTOS's include paths in INCLUDES;
#       RTOS_HEAP 1                       # 0: pvPortMalloc unwrapped (heap_3 calls malloc)
#       LIBC_HEAP none)                   # or newlib: newlib's heap state (docs/HEALTH.md)
#   target_link_libraries(firmware.elf PRIVATE msamp)
#
# The static library holds the core, every wrapper, the port and the transport. Linking it gives
# the firmware msamp's include paths, -fno-omit-frame-pointer (msamp's own sources but the
# wrappers and hooks are built without frame pointers), what the port's stack walker needs on
# every file, the firmware's own too since each walk goes up through them (ARCH arm with gcc:
# -funwind-tables, port/arm/README.md; the compiler is CMAKE_C_COMPILER_ID's), and the link options
# -Wl,--wrap=FUNC for each WRAP function plus -Wl,--build-id, and port/ on the link's search path
# (the linker script's `INCLUDE msamp.ld`: port/msamp.ld, README.md). msamp_add_library also sets
# MSAMP_SEMIHOSTING_SOURCES in the caller's scope: the architecture's semihosting helpers
# (port/semihosting/: console text, exit), for firmware that uses them itself. The project's
# toolchain file sets the compiler and CPU flags; for the .S files of a port, enable ASM in
# project() or enable_language(ASM) before calling msamp_add_library.
#
# The source lists are port/msamp.mk's, which this file asks for at configure time: the port's
# (port/<arch>/port.mk), the core's (src/sources.mk). That needs GNU make on the build machine.
cmake_minimum_required(VERSION 3.13)
get_filename_component(MSAMP_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
find_program(MSAMP_MAKE NAMES gmake make)

function(msamp_add_library name)
    cmake_parse_arguments(M "" "ARCH;TRANSPORT;PROFILE;RTOS;RTOS_TASKS;RTOS_HEAP;LIBC_HEAP" "DEFINITIONS;INCLUDES;WRAP" ${ARGN})
    if(NOT M_TRANSPORT)
        set(M_TRANSPORT none)
    endif()
    if(NOT M_WRAP)
        set(M_WRAP malloc free calloc realloc)
    endif()
    if(NOT M_PROFILE)
        set(M_PROFILE full)
    endif()
    if(NOT M_RTOS)
        set(M_RTOS none)
    endif()
    if(NOT M_RTOS_TASKS)
        set(M_RTOS_TASKS 16)
    endif()
    if(NOT DEFINED M_RTOS_HEAP)
        set(M_RTOS_HEAP 1)
    endif()
    if(NOT M_LIBC_HEAP)
        set(M_LIBC_HEAP none)
    endif()
    if(NOT MSAMP_MAKE)
        message(FATAL_ERROR "msamp_add_library: GNU make is needed to read msamp's source lists")
    endif()

    # port/msamp.mk's variables, one "NAME=value" line each.
    set(vars MSAMP_LIB_SRCS MSAMP_TRANSPORT_SRCS MSAMP_SEMIHOSTING_SRCS MSAMP_OWN_SRCS MSAMP_INCLUDES
             MSAMP_PROFILE_CFLAGS MSAMP_OWN_CFLAGS MSAMP_UNWIND_CFLAGS MSAMP_WRAP_CFLAGS
             MSAMP_CXX_SRCS MSAMP_CXX_CFLAGS MSAMP_CXX_FUNCS MSAMP_RTOS_CFLAGS MSAMP_RTOS_LDFLAGS
             MSAMP_LIBC_HEAP_LDFLAGS)
    # The walker's flags depend on the compiler (port/msamp.mk, MSAMP_COMPILER).
    if(CMAKE_C_COMPILER_ID MATCHES "Clang")
        set(m_compiler clang)
    else()
        set(m_compiler gcc)
    endif()
    list(JOIN vars " " var_names)
    list(JOIN M_WRAP " " wrap_funcs)
    execute_process(
        COMMAND "${MSAMP_MAKE}" -s --no-print-directory -f "${MSAMP_DIR}/port/msamp.mk"
                "MSAMP_DIR=${MSAMP_DIR}" "MSAMP_ARCH=${M_ARCH}" "MSAMP_TRANSPORT=${M_TRANSPORT}"
                "MSAMP_PROFILE=${M_PROFILE}" "MSAMP_WRAP_FUNCS=${wrap_funcs}" "MSAMP_COMPILER=${m_compiler}"
                "MSAMP_RTOS=${M_RTOS}" "MSAMP_RTOS_TASKS=${M_RTOS_TASKS}" "MSAMP_RTOS_HEAP=${M_RTOS_HEAP}"
                "MSAMP_LIBC_HEAP=${M_LIBC_HEAP}"
                "--eval=msamp-lists: ; @:$(foreach v,${var_names},$(info $(v)=$($(v))))" msamp-lists
        OUTPUT_VARIABLE lists ERROR_VARIABLE errors RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
        message(FATAL_ERROR "msamp_add_library: ${errors}")
    endif()
    foreach(v IN LISTS vars)
        string(REGEX MATCH "(^|\n)${v}=([^\n]*)" line "${lists}")
        separate_arguments(${v} UNIX_COMMAND "${CMAKE_MATCH_2}")
    endforeach()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${MSAMP_DIR}/port/msamp.mk"
                 "${MSAMP_DIR}/src/sources.mk" "${MSAMP_DIR}/port/${M_ARCH}/port.mk")

    add_library(${name} STATIC ${MSAMP_LIB_SRCS} ${MSAMP_TRANSPORT_SRCS})
    list(TRANSFORM MSAMP_INCLUDES REPLACE "^-I" "")
    target_include_directories(${name} PUBLIC ${MSAMP_INCLUDES} PRIVATE ${M_INCLUDES})
    target_compile_definitions(${name} PRIVATE ${M_DEFINITIONS})
    # PUBLIC: the firmware's own files need the walker's flags as much as msamp's. MSAMP_WRAP_CFLAGS:
    # the wrappers' nesting guard for the WRAP list (newlib's malloc and _malloc_r, port/msamp.mk).
    # RTOS: the layer's include path and defines (MSAMP_PORT_RTOS, the pool and registry sizes).
    target_compile_options(${name} PUBLIC -fno-omit-frame-pointer ${MSAMP_UNWIND_CFLAGS} ${MSAMP_RTOS_CFLAGS} PRIVATE
                           -ffreestanding ${MSAMP_PROFILE_CFLAGS} ${MSAMP_WRAP_CFLAGS})
    # msamp's sources but the wrappers and hooks need no frame pointers, and get a section per
    # function (port/msamp.mk says why).
    if(NOT M_ARCH STREQUAL "hosted")
        set_source_files_properties(${MSAMP_OWN_SRCS} PROPERTIES COMPILE_OPTIONS "${MSAMP_OWN_CFLAGS}")
    endif()
    # The C++ wrappers: std::bad_alloc unwinds through operator new's (-fexceptions).
    if(MSAMP_CXX_SRCS)
        set_source_files_properties(${MSAMP_CXX_SRCS} PROPERTIES COMPILE_OPTIONS "${MSAMP_CXX_CFLAGS}")
    endif()
    # cxx in WRAP: every C++ form under the ARCH's mangled name, and every wrapper taken with -u
    # (linked before libstdc++, which calls forms the firmware may not, and malloc: port/msamp.mk).
    # newlib's _r functions in WRAP: their wrappers taken with -u too, since newlib's own malloc,
    # strdup, printf... call them from libc.a, linked after this library (port/msamp.mk).
    set(wrap_list ${M_WRAP})
    set(undef_list)
    foreach(f IN LISTS wrap_list)
        if(f MATCHES "^_[a-z]+_r$")
            list(APPEND undef_list ${f})
        endif()
    endforeach()
    if("cxx" IN_LIST wrap_list)
        list(REMOVE_ITEM wrap_list cxx)
        list(APPEND wrap_list ${MSAMP_CXX_FUNCS})
        set(undef_list ${wrap_list})
    endif()
    list(TRANSFORM undef_list PREPEND "LINKER:-u,__wrap_" OUTPUT_VARIABLE wrap_undef)
    list(JOIN wrap_list ",--wrap=" wraps)
    target_link_options(${name} INTERFACE "LINKER:--wrap=${wraps}" ${wrap_undef} "LINKER:--build-id"
                        ${MSAMP_RTOS_LDFLAGS} ${MSAMP_LIBC_HEAP_LDFLAGS})
    # The linker script's INCLUDE msamp.ld looks along the -L paths.
    target_link_directories(${name} INTERFACE "${MSAMP_DIR}/port")
    set(MSAMP_SEMIHOSTING_SOURCES ${MSAMP_SEMIHOSTING_SRCS} PARENT_SCOPE)
endfunction()
