# tests/module.mk - test programs that need more than testutil.o.
#
# test_differential links the reference simulator (tests/refsim.c).
$(BUILD)/tests/test_differential: $(BUILD)/tests/test_differential.o $(BUILD)/tests/refsim.o $(BUILD)/tests/testutil.o $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(filter %.o,$^) $(LIBS) $(LDFLAGS_ALL) $(SYSLIBS) -lcmocka -o $@
