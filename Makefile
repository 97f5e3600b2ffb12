# msamp top-level Makefile. Each area keeps its rules in its own fragment (*.mk), included below;
# a fragment adds test names to TESTS (run as `make test-NAME`) and benchmarks to BENCHES.
# `make help` lists the targets documented with ##.

.DEFAULT_GOAL := all
SHELL := /bin/bash
BUILD ?= build
BOARD ?= qemu-virt-aarch64
TRANSPORT ?= uart

CC ?= cc
ifeq ($(origin CC),default)
CC := gcc
endif
AR ?= ar

# Warnings for the freestanding target code, on every compiler and architecture.
TARGET_WARN := -std=c11 -Wall -Wextra -Werror -Werror=undef -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -Wpointer-arith -Wno-unused-parameter
# Host tools and tests.
HOST_CFLAGS ?= -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

TESTS :=
BENCHES :=

include $(sort $(wildcard src/*.mk port/*/*.mk host_tools/*.mk host_tools/*/*.mk boards/*.mk tests/*/*.mk))

.PHONY: all deps test bench help clean

all: $(ALL_TARGETS) ## Build the hosted library and the host tools

deps: ## Install missing Debian packages (as root) or print the apt-get line
	@ci/deps.sh all

test: ## Run every test (installs missing packages when root); ends with "N passed, N failed"
	@ci/deps.sh all
	@$(MAKE) --no-print-directory $(TEST_PREREQS)
	@MAKE="$(MAKE)" tests/runner.sh $(TESTS)

bench: ## Run the benchmarks; results are ratios against baselines measured in the same run
	@ci/deps.sh all
	@set -e; for b in $(BENCHES); do $(MAKE) -s --no-print-directory bench-$$b; done

help: ## List the documented targets
	@grep -hE '^[a-zA-Z0-9_%/.-]+:.*## ' $(MAKEFILE_LIST) | sort -u | \
	  awk 'BEGIN {FS = ":.*## "} {printf "  %-22s %s\n", $$1, $$2}'
	@echo "  Variables: BOARD=$(BOARD) TRANSPORT=$(TRANSPORT) (uart|semihosting) CC=$(CC)"

clean: ## Remove build outputs
	rm -rf $(BUILD) out $(CLEAN_FILES)
