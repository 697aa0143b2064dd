# common/: the library every program links (COMMON_SRCS, set in the Makefile).

# b2_err_held's test program (tests/test_held.sh): common/ alone.
TESTPROGS += $(BUILD)/tests/held-test
$(BUILD)/tests/held-test: $(patsubst %.c,$(BUILD)/%.o,tests/held_test.c $(COMMON_SRCS) $(EXTRA_SRCS))
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
