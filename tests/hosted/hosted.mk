# Tests of the hosted Linux port (port/hosted): end to end through pkg-config, application
# behaviour, threads under ThreadSanitizer, unwinder safety, environment handling and fork.
# The programs and the stream checker live in tests/hosted/; outputs go to build/tests/hosted/.

HT := $(BUILD)/tests/hosted
HT_PC = PKG_CONFIG_PATH=$(BUILD)/$(1) pkg-config --cflags --libs msamp
# Test programs: no builtin malloc (gcc would delete unused pairs), no tail calls (a site's frame
# would vanish from its own stack).
HT_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -fno-builtin-malloc \
	-fno-optimize-sibling-calls -fno-omit-frame-pointer

# A ThreadSanitizer build of the library that also sends block addresses (for the exact live-set
# comparison); clang, since TSan needs PIE and its runtime.
$(eval $(call msamp_hosted_variant,hosted-tsan,clang,-fsanitize=thread -DMSAMP_CFG_SEND_ADDRESSES=1,ar,nm,-fsanitize=thread))

$(HT)/msamp_check: tests/hosted/msamp_check.c $(HOSTDEC_LIB) $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(HOSTDEC_INC) $< $(HOSTDEC_LIB) -ldw -lelf -lz -lm -o $@

$(HT)/e2e_app: tests/hosted/e2e_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) $< $$($(call HT_PC,hosted)) -o $@

$(HT)/e2e_app_static: tests/hosted/e2e_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) -static $< $$($(call HT_PC,hosted)) -o $@

$(HT)/e2e_app_clang: tests/hosted/e2e_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	clang $(HT_CFLAGS) $< $$($(call HT_PC,hosted)) -o $@

$(HT)/behave_plain: tests/hosted/behave_app.c
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) $< -o $@

$(HT)/behave_msamp: tests/hosted/behave_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) $< $$($(call HT_PC,hosted)) -o $@

$(HT)/threads_tsan: tests/hosted/threads_app.c $(BUILD)/hosted-tsan/libmsamp.a $(BUILD)/hosted-tsan/msamp.pc
	@mkdir -p $(@D)
	clang $(HT_CFLAGS) -fsanitize=thread -Iinclude $< $$($(call HT_PC,hosted-tsan)) -o $@

$(HT)/nofp_lib.o: tests/hosted/nofp_lib.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -fomit-frame-pointer -Wall -Wextra -Werror -c $< -o $@

$(HT)/unwind_app: tests/hosted/unwind_app.c $(HT)/nofp_lib.o $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) -static $< $(HT)/nofp_lib.o $$($(call HT_PC,hosted)) -o $@

TESTS += hosted-e2e hosted-e2e-static hosted-e2e-clang hosted-behaviour hosted-threads-tsan \
	hosted-unwind hosted-env hosted-fork

$(HT)/heap_app: tests/hosted/heap_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) $< $$($(call HT_PC,hosted)) -o $@

TESTS += hosted-heap
test-hosted-heap: $(HT)/heap_app host_tools/drain ## glibc's mallinfo2 through the HEAP record (walk budget lifted): drain's free figures within 1 % of the program's own at exit; at the default budget the total alone
	tests/hosted/heap.sh $(HT)/heap_app host_tools/drain $(HT)/heap

# The hook's internals (msamp_hosted_heap_cost) through hosted.h.
$(HT)/heapstall_app: tests/hosted/heapstall_app.c port/hosted/hosted.h $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) $(HOSTED_CONFIG) $< $$($(call HT_PC,hosted)) -o $@

TESTS += hosted-heapstall
test-hosted-heapstall: $(HT)/heapstall_app ## 10^6 free chunks in 4 arenas: the heap hook's longest call <= 1 ms (CPU; wall in 2 runs of 3), no walk, <= 0.1 % of the time; msamp on vs off within 50 ms (backstop)
	tests/hosted/heapstall.sh $(HT)/heapstall_app

$(HT)/unheld_app: tests/hosted/unheld_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) $< $$($(call HT_PC,hosted)) -o $@

TESTS += hosted-unheld
test-hosted-unheld: $(HT)/unheld_app host_tools/drain host_tools/msamp-dump ## total-only HEAP records (default walk budget): drain's unheld bytes (total - sampled in use) cover the truth (the record's total - the program's live bytes) at >= 85 % of the points over 30 seeds, pooled bias within 4 sd
	tests/hosted/unheld.sh $(HT)/unheld_app host_tools/drain host_tools/msamp-dump $(HT)/unheld

$(HT)/table_app: tests/hosted/table_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) $< $$($(call HT_PC,hosted)) -o $@

TESTS += hosted-table
test-hosted-table: $(HT)/table_app host_tools/drain ## The live table at 15 % load, every allocation sampled (issue 36): 10 100 live blocks at glibc's strides, none refused, in-use exact
	tests/hosted/table.sh $(HT)/table_app host_tools/drain $(HT)/table

test-hosted-e2e: $(HT)/e2e_app $(HT)/msamp_check ## Hosted end to end: known sites, stacks and estimates within 4.5 sd
	tests/hosted/e2e.sh $(HT)/e2e_app $(HT)/msamp_check $(HT)/e2e

test-hosted-e2e-static: $(HT)/e2e_app_static $(HT)/msamp_check ## The same, linked statically (glibc's allocations wrapped too)
	tests/hosted/e2e.sh $(HT)/e2e_app_static $(HT)/msamp_check $(HT)/e2e-static

test-hosted-e2e-clang: $(HT)/e2e_app_clang $(HT)/msamp_check ## The same, the program built with clang
	@tests/need.sh clang
	tests/hosted/e2e.sh $(HT)/e2e_app_clang $(HT)/msamp_check $(HT)/e2e-clang

test-hosted-behaviour: $(HT)/behave_plain $(HT)/behave_msamp $(HT)/msamp_check ## Allocator results, errno and alignment identical with and without msamp
	tests/hosted/behave.sh $(HT)

test-hosted-threads-tsan: $(HT)/threads_tsan $(HT)/msamp_check ## 8 threads under ThreadSanitizer; the live set is exact
	@tests/need.sh clang
	tests/hosted/threads.sh $(HT)/threads_tsan $(HT)/msamp_check $(HT)/threads

test-hosted-unwind: $(HT)/unwind_app $(HT)/msamp_check ## The walker survives frames without frame pointers and hostile ones
	tests/hosted/unwind.sh $(HT)/unwind_app $(HT)/msamp_check $(HT)/unwind

test-hosted-env: $(HT)/e2e_app $(HT)/msamp_check host_tools/msamp-dump ## MSAMP_OUTPUT patterns, MSAMP_DISABLE, bad settings, tcp: output
	tests/hosted/env.sh $(HT)/e2e_app $(HT)/msamp_check $(HT)/env

test-hosted-fork: $(HT)/fork_app $(HT)/behave_msamp $(HT)/msamp_check host_tools/msamp-dump ## A forked child stops profiling and never writes into the parent's stream
	tests/hosted/fork.sh $(HT)

$(HT)/fork_app: tests/hosted/fork_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) $< $$($(call HT_PC,hosted)) -o $@

$(HT)/signal_app: tests/hosted/signal_app.c tests/hosted/signal_pool.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) -Iinclude $(filter %.c,$^) -Wl,--wrap=pool_alloc,--wrap=pool_free $$($(call HT_PC,hosted)) -o $@

TESTS += hosted-signal
test-hosted-signal: $(HT)/signal_app $(HT)/msamp_check ## Allocations from a signal handler while its thread is inside msamp: no deadlock
	tests/hosted/signal.sh $(HT)/signal_app $(HT)/msamp_check $(HT)/signal

TESTS += hosted-signal-rate
test-hosted-signal-rate: $(HT)/signal_app $(HT)/msamp_check ## A signal handler's allocations at their own rate (sampled + turned away by the guard, 30 seeds): none re-samples its thread's spent countdown
	tests/hosted/signal_rate.sh $(HT)/signal_app $(HT)/msamp_check $(HT)/signal-rate

# Stacks through code without frame pointers (the DWARF walk, docs/HOSTED.md): a shared library
# and a dlopen()ed one built as Debian builds its own (-O2 -fomit-frame-pointer), a C++20 program
# (std::string's allocation instantiated in it), the signal test's pool for a handler's allocations.
$(HT)/libdwarf_lib.so: tests/hosted/dwarf_lib.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -fomit-frame-pointer -fPIC -shared -Wall -Wextra -Werror $< -o $@
$(HT)/dwarf_ctor.so: tests/hosted/dwarf_ctor.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -fomit-frame-pointer -fPIC -shared -Wall -Wextra -Werror $< -o $@
$(HT)/dwarf_sig.o: tests/hosted/dwarf_sig.c
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) -Iinclude -c $< -o $@
$(HT)/signal_pool.o: tests/hosted/signal_pool.c
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) -c $< -o $@
$(HT)/dwarf_app: tests/hosted/dwarf_app.cpp $(HT)/dwarf_sig.o $(HT)/signal_pool.o $(HT)/libdwarf_lib.so \
		$(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	g++ -std=c++20 $(filter-out -std=c11 -D_GNU_SOURCE,$(HT_CFLAGS)) $< $(HT)/dwarf_sig.o $(HT)/signal_pool.o \
		-L$(HT) -ldwarf_lib -Wl,-rpath,'$$ORIGIN' -Wl,--export-dynamic-symbol=dwarf_ctor_alloc \
		-Wl,--wrap=pool_alloc,--wrap=pool_free $$($(call HT_PC,hosted)) -ldl -o $@

TESTS += hosted-dwarf-stacks
test-hosted-dwarf-stacks: $(HT)/dwarf_app $(HT)/dwarf_ctor.so host_tools/drain ## Stacks through -fomit-frame-pointer libraries, qsort, libstdc++, dlopen, a signal handler: every sample reaches main (DWARF walk)
	tests/hosted/dwarf.sh $(HT)/dwarf_app $(HT)/dwarf_ctor.so host_tools/drain $(HT)/dwarf

# The adaptive interval at scale: about 10^6 live blocks, more than 10 times the live table's
# expected samples at the start interval; estimates within 2 % (totals) and 10 % (sites).
$(HT)/scale_app: tests/hosted/scale_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) $< $$($(call HT_PC,hosted)) -o $@

TESTS += hosted-scale
test-hosted-scale: $(HT)/scale_app host_tools/drain host_tools/msamp-dump ## 10^6 live blocks, 13x the live table: adaptive interval's estimates within 2 %/10 %; pinned: as before
	tests/hosted/scale.sh $(HT)/scale_app host_tools/drain host_tools/msamp-dump $(HT)/scale

# When the writer thread exists (tests/hosted/lazy.sh): none while the program is single-threaded,
# started once it has a thread of its own, woken (not waited out) by the exit. The exit test links
# a library whose writer waits 60 s between polls, so that an exit that waited for the writer's
# timeout instead of waking it shows in strace's log.
$(eval $(call msamp_hosted_variant,hosted-longpoll,$(CC),-DMSAMP_HOSTED_POLL_MS=60000,$(AR),nm,))
# Where the writer thread drains the ring, a loaded machine may schedule it too late for 256 KiB:
# lazy.sh runs such a case again, once, with the program linked with a 4 MiB ring (*_bigring).
$(eval $(call msamp_hosted_variant,hosted-bigring,$(CC),-DMSAMP_CFG_RING_SIZE=4194304,$(AR),nm,))

$(HT)/lazy_app_bigring: tests/hosted/lazy_app.c $(BUILD)/hosted-bigring/libmsamp.a $(BUILD)/hosted-bigring/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) -Iinclude $< $$($(call HT_PC,hosted-bigring)) -o $@

$(HT)/lazy_app_static_bigring: tests/hosted/lazy_app.c $(BUILD)/hosted-bigring/libmsamp.a $(BUILD)/hosted-bigring/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) -Iinclude -static $< $$($(call HT_PC,hosted-bigring)) -o $@

$(HT)/lazy_app: tests/hosted/lazy_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) -Iinclude $< $$($(call HT_PC,hosted)) -o $@

$(HT)/lazy_app_static: tests/hosted/lazy_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) -Iinclude -static $< $$($(call HT_PC,hosted)) -o $@

$(HT)/lazy_app_longpoll: tests/hosted/lazy_app.c $(BUILD)/hosted-longpoll/libmsamp.a $(BUILD)/hosted-longpoll/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) -Iinclude $< $$($(call HT_PC,hosted-longpoll)) -o $@

TESTS += hosted-lazy-single hosted-lazy-thread hosted-exit-wake

test-hosted-lazy-single: $(HT)/lazy_app $(HT)/lazy_app_bigring $(HT)/msamp_check ## A single-threaded program: no msamp thread, glibc stays single-threaded, the stream complete
	tests/hosted/lazy.sh single $(HT)/msamp_check $(HT)/lazy-single $(HT)/lazy_app

test-hosted-lazy-thread: $(HT)/lazy_app $(HT)/lazy_app_static $(HT)/lazy_app_bigring $(HT)/lazy_app_static_bigring $(HT)/msamp_check ## The writer starts once the program has a thread; nothing counted as reentrant; the stream exact
	tests/hosted/lazy.sh thread $(HT)/msamp_check $(HT)/lazy-thread $(HT)/lazy_app $(HT)/lazy_app_static

test-hosted-exit-wake: $(HT)/lazy_app_longpoll $(HT)/msamp_check ## The exit wakes the writer (strace: no sleep, its last wait ended by a wake)
	@tests/need.sh strace
	tests/hosted/lazy.sh exitwake $(HT)/msamp_check $(HT)/exit-wake $(HT)/lazy_app_longpoll
