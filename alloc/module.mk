# alloc/module.mk - alloc/mpi.c with MPI when mpicc exists (Open MPI:
# libopenmpi-dev, openmpi-bin), as exp/module.mk does for exp/mpi.c;
# `make EXP_NO_MPI=1` builds both without MPI.  libmpi is linked only into
# the programs that use alloc/mpi.o (bin/allocate): --as-needed.  The
# installed libshadowbind_alloc.a holds mpi.o too: shadowbind.pc's Libs
# carry ALLOC_MPI_LIBS, so a program calling alloc_run_ranks links.

ALLOC_MPICC := $(if $(filter 1,$(EXP_NO_MPI)),,$(shell command -v mpicc 2>/dev/null))
ifneq ($(ALLOC_MPICC),)
$(BUILD)/alloc/mpi.o: CFLAGS += -DALLOC_MPI $(shell $(ALLOC_MPICC) --showme:compile 2>/dev/null)
ALLOC_MPI_LIBS := -Wl,--push-state,--as-needed $(shell $(ALLOC_MPICC) --showme:link 2>/dev/null) -Wl,--pop-state
SYSLIBS += $(ALLOC_MPI_LIBS)
endif
