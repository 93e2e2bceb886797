# alloc/module.mk - alloc/mpi.c with MPI when mpicc exists (Open MPI:
# libopenmpi-dev, openmpi-bin), as exp/module.mk does for exp/mpi.c;
# `make EXP_NO_MPI=1` builds both without MPI.  libmpi is linked only into
# the programs that use alloc/mpi.o (bin/allocate): --as-needed.

ALLOC_MPICC := $(if $(filter 1,$(EXP_NO_MPI)),,$(shell command -v mpicc 2>/dev/null))
ifneq ($(ALLOC_MPICC),)
$(BUILD)/alloc/mpi.o: CFLAGS += -DALLOC_MPI $(shell $(ALLOC_MPICC) --showme:compile 2>/dev/null)
SYSLIBS += -Wl,--push-state,--as-needed $(shell $(ALLOC_MPICC) --showme:link 2>/dev/null) -Wl,--pop-state
endif
