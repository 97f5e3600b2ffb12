# The link-aware device on paced links (tests/link/link.sh, docs/ADAPTIVE.md "The link"): the
# demo on qemu-virt-aarch64 with its UART paced at 115200 and 9600 baud (MSAMP_UART_BAUD), main's
# device (MSAMP_CFG_LINK_ADAPT=0) against the link-aware one, 5 seeds each. About 5 minutes on two
# busy cores (5 firmware builds, 25 runs).
LINK_T := $(BUILD)/tests/link

TESTS += board-link
test-board-link: ## Paced UART at 115200 and 9600 baud and a 1440 B/s budget: the link-aware device's per-site estimates cover the truth in >= 90 % of (site, run) rows at each, drops before/after, every drop counted by drain
	@tests/link/link.sh $(LINK_T) 5
