# bench/module.mk - benchmarks with extra requirements.
#
# bench/vs-simgrid (our simulator against SimGrid, docs in its header) needs
# SimGrid (Debian: libsimgrid-dev); it is not part of `make bench` and
# nothing depends on it: `make vs-simgrid` builds it when
# `pkg-config simgrid` succeeds and says why not otherwise.
.PHONY: vs-simgrid
SIMGRID_PC := $(shell pkg-config --exists simgrid 2>/dev/null && echo yes)
ifeq ($(SIMGRID_PC),yes)
vs-simgrid: $(BUILD)/bench/vs-simgrid
$(BUILD)/bench/vs-simgrid: bench/vs-simgrid/vs-simgrid.c $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(shell pkg-config --cflags simgrid) $< $(LIBS) $(LDFLAGS_ALL) $(SYSLIBS) $(shell pkg-config --libs simgrid) -o $@
else
vs-simgrid:
	@echo "vs-simgrid: SimGrid not found (pkg-config simgrid failed): install libsimgrid-dev"
endif

# bench/scale (issue 22): the tools on recorded runs of 10^6..10^8
# synchronization calls; not in CI (about 25 minutes at full size).
# SCALE_DIV=100 divides the sizes.
.PHONY: bench-scale
bench-scale: $(CMDS) $(BUILD)/bench/trace-speed $(REC_PRELOAD) $(BUILD)/examples/lockloop
	BUILD=$(BUILD) BIN=$(BIN) SCALE_DIV=$(or $(SCALE_DIV),1) sh bench/scale
