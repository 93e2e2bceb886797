# cli: the command-line layer.  The JSON test checks every --json output
# with an independent parser (jansson); only that test links it.
$(BUILD)/tests/test_cli_json: SYSLIBS += -ljansson
