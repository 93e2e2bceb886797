# trace/module.mk - the trace module's system libraries: zstd for
# compressed traces (trace/zst.c; Debian package libzstd-dev).
SYSLIBS += -lzstd
