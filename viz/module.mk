# viz: charts through cairo (SVG), the tests parse JSON with jansson.
SYSLIBS += -lcairo -ljansson
CFLAGS_ALL += $(shell pkg-config --cflags cairo 2>/dev/null || echo -I/usr/include/cairo)
