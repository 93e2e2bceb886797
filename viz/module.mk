# viz: charts through cairo (SVG; fontconfig to free its caches), the
# tests parse JSON with jansson.
SYSLIBS += -lcairo -lfontconfig -ljansson
CFLAGS_ALL += $(shell pkg-config --cflags cairo 2>/dev/null || echo -I/usr/include/cairo)
