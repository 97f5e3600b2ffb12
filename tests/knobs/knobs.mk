# The knob matrix (tests/knobs/knobs.py): every documented value of every MSAMP_CFG_* knob alone,
# every pair of values of two knobs (a covering array), and the documented invalid combinations
# (each refused by its static assert), compiled -fsyntax-only under TARGET_WARN with gcc and
# clang: the core with the hosted port (x86-64), the core with port/aarch64 and with port/arm
# (Cortex-M3), freestanding. Under a minute on two cores; `tests/knobs/knobs.py DIR --list` prints
# the configurations.
KNOBS_OUT := $(BUILD)/tests/knobs

TESTS += cross-knobs
test-cross-knobs: ## Every documented value of every MSAMP_CFG_* knob, alone and in pairs, compiles with gcc and clang (hosted, aarch64, Cortex-M3); invalid ones fail at their static assert
	@tests/need.sh python3 gcc clang aarch64-linux-gnu-gcc arm-none-eabi-gcc
	@TARGET_WARN="$(TARGET_WARN)" CORE_SRCS="$(MSAMP_CORE_SRCS) $(MSAMP_WRAP_SRCS)" \
		PORT_HOSTED="$(msamp_port_hosted)" PORT_AARCH64="$(msamp_port_aarch64)" \
		PORT_ARM="$(msamp_port_arm)" JOBS=$(shell nproc 2>/dev/null || echo 2) \
		python3 tests/knobs/knobs.py $(KNOBS_OUT)
