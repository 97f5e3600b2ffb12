# The hosted output under failing and stalled consumers, and hostile use of the allocator API
# (docs/HOSTED.md, "When the consumer stalls or fails" and "Hostile API use"). Part of the
# reliability suite (tests/robust/robust.mk) as well as `make test`.

$(HT)/output_app: tests/hosted/output_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) $< $$($(call HT_PC,hosted)) -o $@

TESTS += hosted-output-fd hosted-output-stall hosted-output-tcp
ROBUST_TESTS += hosted-output-fd hosted-output-stall hosted-output-tcp

test-hosted-output-fd: $(HT)/output_app $(HT)/msamp_check host_tools/msamp-dump ## Daemon-style descriptor closing and reuse, /dev/full: the program's files stay intact, one message
	tests/hosted/output_faults.sh fd $(HT)/output_app $(HT)/msamp_check $(HT)/output-fd

test-hosted-output-stall: $(HT)/output_app $(HT)/msamp_check host_tools/msamp-dump host_tools/drain ## FIFO without reader, late drain, pipe never read, slow reader: no blocking, bounded exit, drops counted
	tests/hosted/output_faults.sh stall $(HT)/output_app $(HT)/msamp_check $(HT)/output-stall

test-hosted-output-tcp: $(HT)/output_app $(HT)/msamp_check host_tools/msamp-dump host_tools/drain ## TCP peer on 127.0.0.1 that never reads, and one that reads late: no blocking, bounded exit, drops counted
	tests/hosted/output_faults.sh tcp $(HT)/output_app $(HT)/msamp_check $(HT)/output-tcp

# Hostile API use: the program's own replacement allocator (hostile_shim.c, what __real_malloc...
# resolve to) tolerates double frees and foreign pointers and records each call; msamp built and
# the program compiled with UndefinedBehaviorSanitizer (AddressSanitizer would replace the very
# allocator under test).
$(eval $(call msamp_hosted_variant,hosted-ubsan,$(CC),-fsanitize=undefined -fno-sanitize-recover=all,$(AR),nm,-fsanitize=undefined))

$(HT)/hostile_app: tests/hosted/hostile_app.c tests/hosted/hostile_shim.c tests/hosted/hostile_shim.h $(BUILD)/hosted-ubsan/libmsamp.a $(BUILD)/hosted-ubsan/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) -fno-builtin -fsanitize=undefined -fno-sanitize-recover=all -Itests/hosted \
		$(filter %.c,$^) $$($(call HT_PC,hosted-ubsan)) -o $@

TESTS += hosted-hostile
ROBUST_TESTS += hosted-hostile

test-hosted-hostile: $(HT)/hostile_app $(HT)/msamp_check host_tools/drain ## Double frees, foreign pointers, huge sizes, bad alignments: every call reaches the allocator unchanged, the live table stays exact
	tests/hosted/hostile.sh $(HT)/hostile_app $(HT)/msamp_check $(HT)/hostile
