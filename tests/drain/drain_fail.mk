# drain-failures (read before drain_tests.mk: paths spelled out): allocation failures and giant-guard refusals end to end (tests/drain/t_fail.sh):
# a hosted program's NULL returns and the fake-port stream of unit-fail, through drain's report.
TESTS += drain-failures

$(BUILD)/drain/fail_app: tests/drain/fail_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags msamp) $< \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --libs msamp) -o $@

test-drain-failures: $(BUILD)/drain/fail_app $(BUILD)/unit/test_fail host_tools/msamp-dump drain-failures-tools
	$(DRAIN_T_ENV) tests/drain/t_fail.sh

# drain_tests.mk (read after this fragment) defines DRAIN_T_TOOLS: named through a phony target.
.PHONY: drain-failures-tools
drain-failures-tools:
	@$(MAKE) --no-print-directory $(DRAIN_T_TOOLS)
