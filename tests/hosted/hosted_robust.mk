# The hosted output under failing and stalled consumers, and hostile use of the allocator API
# (docs/HOSTED.md, "When the consumer stalls or fails" and "Hostile API use"). Part of the
# reliability suite (tests/robust/robust.mk) as well as `make test`.

$(HT)/output_app: tests/hosted/output_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(HT_CFLAGS) $< $$($(call HT_PC,hosted)) -o $@

TESTS += hosted-output-fd hosted-output-stall
ROBUST_TESTS += hosted-output-fd hosted-output-stall

test-hosted-output-fd: $(HT)/output_app $(HT)/msamp_check host_tools/msamp-dump ## Daemon-style descriptor closing and reuse, /dev/full: the program's files stay intact, one message
	tests/hosted/output_faults.sh fd $(HT)/output_app $(HT)/msamp_check $(HT)/output-fd

test-hosted-output-stall: $(HT)/output_app $(HT)/msamp_check host_tools/msamp-dump host_tools/drain ## FIFO without reader, pipe and TCP peer that never read, slow consumers: no blocking, bounded exit, drops counted
	tests/hosted/output_faults.sh stall $(HT)/output_app $(HT)/msamp_check $(HT)/output-stall
