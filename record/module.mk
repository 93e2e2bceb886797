# record/module.mk - the recorder's extra targets (docs/record.md).
#
# The LD_PRELOAD library is NOT part of build/librecord.a: it defines
# pthread_mutex_lock & co., which must never be linked into our own
# commands.  Its sources live in record/preload/ (not matched by the
# record/*.c of the library rule) and are compiled with -fPIC, without
# sanitizers (it is loaded into programs built without them), into
# $(BIN)/libshadowbind-record.so next to the commands, which find it there
# through /proc/self/exe.  The example programs (examples/programs/) are
# built into $(BUILD)/examples/, also without sanitizers.

.DEFAULT_GOAL := all

REC_PRELOAD := $(BIN)/libshadowbind-record.so
REC_PIC_SRCS := $(wildcard record/preload/*.c) trace/ops.c
REC_PIC_OBJS := $(patsubst %.c,$(BUILD)/pic/%.o,$(REC_PIC_SRCS))
# shadowbind-run --binding's library: pthread_create only (rr_run.c)
REC_RUN_PRELOAD := $(BIN)/libshadowbind-run.so
REC_RUN_SRCS := record/preload/run/rr_run.c record/preload/rp_pin.c record/preload/rp_env.c
REC_RUN_OBJS := $(patsubst %.c,$(BUILD)/pic/%.o,$(REC_RUN_SRCS))
REC_PIC_FLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -fPIC -I. -pthread

REC_EX_C  := $(wildcard examples/programs/*.c)
REC_EX_CC := $(wildcard examples/programs/*.cc)
REC_EXAMPLES := $(patsubst examples/programs/%.c,$(BUILD)/examples/%,$(REC_EX_C)) \
                $(patsubst examples/programs/%.cc,$(BUILD)/examples/%,$(REC_EX_CC))

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(REC_PIC_FLAGS) -MMD -MP -c $< -o $@

$(REC_PRELOAD): $(REC_PIC_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared -pthread $^ -ldl -o $@

$(REC_RUN_PRELOAD): $(REC_RUN_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared -pthread $^ -ldl -o $@

$(BUILD)/examples/%: examples/programs/%.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -pthread $< -o $@ -lm

# OpenMP examples (omp*.c): GCC's OpenMP, libgomp (docs/record.md, OpenMP)
$(BUILD)/examples/omp%: examples/programs/omp%.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -fopenmp $< -o $@ -lm

$(BUILD)/examples/%: examples/programs/%.cc
	@mkdir -p $(@D)
	g++ -std=c++17 -Wall -Wextra -Werror -O2 -g -pthread $< -o $@

all: $(REC_PRELOAD) $(REC_RUN_PRELOAD) $(REC_EXAMPLES)
check: $(REC_PRELOAD) $(REC_RUN_PRELOAD) $(REC_EXAMPLES)
bench: $(REC_PRELOAD) $(REC_RUN_PRELOAD) $(REC_EXAMPLES)
