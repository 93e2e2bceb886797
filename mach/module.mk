# mach: the machine model; shadowbind-calibrate names the topology with
# hwloc (libhwloc-dev).
SYSLIBS += -lhwloc
