# drain-failures: allocation failures and giant-guard refusals end to end (tests/drain/t_fail.sh):
# a hosted program's NULL returns and the fake-port stream of unit-fail, through drain's report.
TESTS += drain-failures

$(DRAIN_T)/fail_app: tests/drain/fail_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags msamp) $< \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --libs msamp) -o $@

test-drain-failures: $(DRAIN_T)/fail_app $(BUILD)/unit/test_fail host_tools/msamp-dump $(DRAIN_T_TOOLS)
	$(DRAIN_T_ENV) tests/drain/t_fail.sh
