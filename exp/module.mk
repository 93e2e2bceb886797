# exp/module.mk - the experiment runner's build: MPI when mpicc exists
# (Open MPI: libopenmpi-dev, openmpi-bin), else the one-process build.
# `make EXP_NO_MPI=1` builds without MPI even where it is installed.

EXP_MPICC := $(if $(filter 1,$(EXP_NO_MPI)),,$(shell command -v mpicc 2>/dev/null))
ifneq ($(EXP_MPICC),)
EXP_MPI_CFLAGS := -DEXP_MPI $(shell $(EXP_MPICC) --showme:compile 2>/dev/null)
EXP_MPI_LIBS := $(shell $(EXP_MPICC) --showme:link 2>/dev/null)
$(BUILD)/exp/mpi.o: CFLAGS += $(EXP_MPI_CFLAGS)
# Only the programs that use exp/mpi.o depend on libmpi.
SYSLIBS += -Wl,--push-state,--as-needed $(EXP_MPI_LIBS) -Wl,--pop-state
endif

# A small experiment end to end (CI, well under 2 minutes): run, resume
# (nothing left to do), plots and a report, in $(BUILD)/quick.
.PHONY: bench-quick
bench-quick: $(BIN)/experiment
	rm -rf $(BUILD)/quick && mkdir -p $(BUILD)/quick
	cp bench/experiments/quick.ini $(BUILD)/quick/
	printf '# quick\n\n@TABLE:quick/ratio@\n\n@PLOT:quick/ratio@\n' \
	  >$(BUILD)/quick/REPORT.md.in
	$(BIN)/experiment $(BUILD)/quick/quick.ini
	$(BIN)/experiment $(BUILD)/quick/quick.ini
	$(BIN)/experiment --report $(BUILD)/quick $(BUILD)/quick/REPORT.md
	grep -q 'plots/quick-ratio.svg' $(BUILD)/quick/REPORT.md
	test -s $(BUILD)/quick/plots/quick-ratio.svg

# The plots and bench/REPORT.md from the CSVs of bench/experiments
# (needs gnuplot: gnuplot-nox; not needed by make check).
.PHONY: report
report: $(BIN)/experiment
	$(BIN)/experiment --report bench/experiments bench/REPORT.md
