# C++ programs (tests/cxx/): every operator new and delete form wrapped, each allocation counted
# once at the C++ call's stack, std::bad_alloc through the wrappers, names demangled by drain.
#   hosted-cxx-dynamic, -static, -static-libstdcxx  cxx_app.cpp linked through the hosted msamp.pc
#                     with libstdc++ linked dynamically, -static, and -static-libstdc++
#   ports-cxx-firmware  a C++ firmware (fw/) on QEMU's Cortex-M3 board (qemu-mps2-an385) with
#                     newlib and its libstdc++, msamp through port/msamp.mk (MSAMP_WRAP_FUNCS cxx)
#   ports-cxx-firmware-cmake  the same through port/msamp.cmake (WRAP cxx), msamp as a library
# Each test names the tools it needs first (tests/need.sh: missing ones skip it, or fail it under
# CI=true), then builds its programs.

CXXT := $(BUILD)/tests/cxx
# The sites' frames kept: no tail calls, frame pointers (the hosted walker), sized deallocation
# (clang before 19 has it off).
CXXT_FLAGS := -std=c++17 -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer \
	-fno-optimize-sibling-calls -fsized-deallocation
CXXT_PC = PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config

$(CXXT)/cxx_app.o: tests/cxx/cxx_app.cpp tests/cxx/cxx_sites.h $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	g++ $(CXXT_FLAGS) $$($(CXXT_PC) --cflags msamp) -c $< -o $@
$(CXXT)/cxx_app_dynamic: $(CXXT)/cxx_app.o $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	g++ $< $$($(CXXT_PC) --libs msamp) -o $@
$(CXXT)/cxx_app_static: $(CXXT)/cxx_app.o $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	g++ -static $< $$($(CXXT_PC) --libs msamp) -o $@
$(CXXT)/cxx_app_static_libstdcxx: $(CXXT)/cxx_app.o $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	g++ -static-libstdc++ $< $$($(CXXT_PC) --libs msamp) -o $@

CXXT_TOOLS := host_tools/drain host_tools/msamp-dump
CXXT_NEED := g++ pkg-config go nm c++filt

TESTS += hosted-cxx-dynamic hosted-cxx-static hosted-cxx-static-libstdcxx
test-hosted-cxx-dynamic: ## C++ through msamp.pc, libstdc++ dynamic: every new/delete form, exact counts at interval 1, bad_alloc, demangled names
	@tests/need.sh $(CXXT_NEED)
	@$(MAKE) --no-print-directory $(CXXT_TOOLS) $(CXXT)/cxx_app_dynamic
	tests/cxx/hosted.sh $(CXXT)/cxx_app_dynamic $(CXXT)/cxx_app.o $(CXXT)/dynamic
test-hosted-cxx-static: ## The same, linked with -static (libstdc++'s own calls wrapped too)
	@tests/need.sh $(CXXT_NEED)
	@$(MAKE) --no-print-directory $(CXXT_TOOLS) $(CXXT)/cxx_app_static
	tests/cxx/hosted.sh $(CXXT)/cxx_app_static $(CXXT)/cxx_app.o $(CXXT)/static
test-hosted-cxx-static-libstdcxx: ## The same, linked with -static-libstdc++ (glibc dynamic)
	@tests/need.sh $(CXXT_NEED)
	@$(MAKE) --no-print-directory $(CXXT_TOOLS) $(CXXT)/cxx_app_static_libstdcxx
	tests/cxx/hosted.sh $(CXXT)/cxx_app_static_libstdcxx $(CXXT)/cxx_app.o $(CXXT)/static-libstdcxx

TESTS += ports-cxx-firmware ports-cxx-firmware-cmake
test-ports-cxx-firmware: ## A C++ firmware on qemu-mps2-an385 (newlib, libstdc++), msamp.mk's cxx wrappers: exact counts, bad_alloc, giant guard, names
	@tests/need.sh go c++filt
	@$(MAKE) --no-print-directory $(CXXT_TOOLS)
	tests/cxx/firmware.sh make $(CXXT)/fw-make
test-ports-cxx-firmware-cmake: ## The same firmware built through msamp.cmake (WRAP ... cxx: the library's C++ wrappers linked by -u)
	@tests/need.sh go c++filt cmake
	@$(MAKE) --no-print-directory $(CXXT_TOOLS)
	tests/cxx/firmware.sh cmake $(CXXT)/fw-cmake
