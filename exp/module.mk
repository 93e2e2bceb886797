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

# A small experiment end to end (CI): run, then the report into build/.
.PHONY: bench-quick
bench-quick: $(BIN)/experiment
	rm -f $(BUILD)/quick.csv $(BUILD)/quick.timing.csv
	$(BIN)/experiment -o $(BUILD)/quick.csv bench/experiments/quick.ini
	$(BIN)/experiment -q -o $(BUILD)/quick.csv bench/experiments/quick.ini
