# The preload library (build/hosted/libmsamp_preload.so) and the interposing link
# (msamp-interpose.pc): allocations made inside shared libraries (issue 39), the library's safety
# in programs as they ship, and real Debian binaries against heaptrack.

HT_PRELOAD := $(BUILD)/hosted/libmsamp_preload.so
HT_IP_PC = PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags --libs msamp-interpose
HT_IP_DEPS := $(BUILD)/hosted/libmsamp_interpose.a $(BUILD)/hosted/msamp-interpose.pc
HT_CXXFLAGS := -std=c++17 -O2 -g -Wall -Wextra -Werror -fno-optimize-sibling-calls -fno-omit-frame-pointer

$(HT)/preload_strings: tests/hosted/preload_strings.cpp
	@mkdir -p $(@D)
	g++ $(HT_CXXFLAGS) $< -o $@
$(HT)/preload_map: tests/hosted/preload_map.cpp
	@mkdir -p $(@D)
	g++ $(HT_CXXFLAGS) $< -o $@
$(HT)/preload_strings_ip: tests/hosted/preload_strings.cpp $(HT_IP_DEPS)
	@mkdir -p $(@D)
	g++ $(HT_CXXFLAGS) $< $$($(HT_IP_PC)) -o $@
$(HT)/preload_strdup: tests/hosted/preload_strdup.c
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) $< -o $@
$(HT)/preload_strdup_ip: tests/hosted/preload_strdup.c $(HT_IP_DEPS)
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) $< $$($(HT_IP_PC)) -o $@

TESTS += hosted-preload-sites hosted-interpose-sites

test-hosted-preload-sites: $(HT)/preload_strings $(HT)/preload_strdup $(HT_PRELOAD) host_tools/drain ## LD_PRELOAD on unmodified programs: std::string in dynamic libstdc++ and glibc's strdup sampled, within drain's 95 % intervals of the truth over 10 seeds
	@tests/need.sh python3
	PRELOAD=$(HT_PRELOAD) tests/hosted/preload_sites.sh preload host_tools/drain $(HT)/preload-sites $(HT)/preload_strings $(HT)/preload_strdup

test-hosted-interpose-sites: $(HT)/preload_strings_ip $(HT)/preload_strdup_ip host_tools/drain ## The interposing link (msamp-interpose.pc): the same library sites, the same checks
	@tests/need.sh python3
	tests/hosted/preload_sites.sh interpose host_tools/drain $(HT)/interpose-sites $(HT)/preload_strings_ip $(HT)/preload_strdup_ip

$(HT)/preload_app: tests/hosted/preload_app.c
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) $< -pthread -ldl -o $@
$(HT)/libpreload_dl.so: tests/hosted/preload_dl.c
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) -shared -fPIC $< -o $@

TESTS += hosted-preload-safety
test-hosted-preload-safety: $(HT)/preload_app $(HT)/libpreload_dl.so $(HT_PRELOAD) $(HT)/msamp_check host_tools/msamp-dump ## LD_PRELOAD safety: allocations from constructors, threads before/after start-up, a signal handler, dlopen; fork and exec with and without LD_PRELOAD; sites within 4.5 sd
	tests/hosted/preload_safety.sh $(HT_PRELOAD) $(HT)/preload_app $(HT)/libpreload_dl.so $(HT)/msamp_check host_tools/msamp-dump $(HT)/preload-safety

TESTS += hosted-preload-heaptrack
test-hosted-preload-heaptrack: $(HT)/preload_strings $(HT)/preload_map $(HT_PRELOAD) host_tools/drain host_tools/msamp-dump ## LD_PRELOAD on Debian's python3, sqlite3 and git and two C++ programs (std::string, std::map) against heaptrack: allocated, in-use and top sites within msamp's 95 % intervals, stacks reaching main; CPU ratios printed
	@tests/need.sh heaptrack heaptrack_print sqlite3 git python3 readelf nm
	python3 tests/hosted/preload_heaptrack.py $(HT_PRELOAD) host_tools/drain host_tools/msamp-dump $(HT)/preload-heaptrack $(HT)/preload_strings \
	  $(HT)/preload_map

$(HT)/preload_app_ip: tests/hosted/preload_app.c $(HT_IP_DEPS)
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) $< $$($(HT_IP_PC)) -o $@

TESTS += hosted-interpose-safety
test-hosted-interpose-safety: $(HT)/preload_app_ip $(HT)/libpreload_dl.so $(HT)/msamp_check host_tools/msamp-dump ## The same program linked with msamp-interpose.pc: the same checks (both exec'ed children profiled)
	tests/hosted/preload_safety.sh - $(HT)/preload_app_ip $(HT)/libpreload_dl.so $(HT)/msamp_check host_tools/msamp-dump $(HT)/interpose-safety
