# xfab: build, test, check, demo. See README.md.
BUILD      ?= build
CLANG      ?= clang-14
BPFTOOL    ?= bpftool
CC         ?= gcc
ARCH_INC   := /usr/include/$(shell uname -m)-linux-gnu

BPF_CFLAGS := -O2 -g -target bpf -mcpu=v3 -Wall -Wextra -Wno-unused-parameter \
	      -Iinclude -Ibpf -I$(ARCH_INC)
CFLAGS     ?= -O2 -g
# Error keys and messages are cut to fixed sizes on purpose.
CFLAGS     += -Wall -Wextra -Wno-missing-field-initializers -Wno-format-truncation -std=gnu11 -Iinclude -Iuser/lib -I$(BUILD)
LDLIBS     := -lbpf -lelf -lz -lmnl
SAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

BPF_SRC    := bpf/xfab.bpf.c
BPF_HDRS   := $(wildcard bpf/*.h) $(wildcard include/*.h)
# user/lib: the library (no main, no global state); user/agent: xfabd;
# user/ctl: xfabctl. Every .c in a folder is part of it.
LIB_SRC    := $(sort $(wildcard user/lib/*.c user/lib/*/*.c))
AGENT_SRC  := $(sort $(wildcard user/agent/*.c))
CTL_SRC    := $(sort $(wildcard user/ctl/*.c))
LIB_OBJ    := $(LIB_SRC:user/%.c=$(BUILD)/obj/%.o)
AGENT_OBJ  := $(AGENT_SRC:user/%.c=$(BUILD)/obj/%.o)
CTL_OBJ    := $(CTL_SRC:user/%.c=$(BUILD)/obj/%.o)
USER_HDRS  := $(wildcard user/*/*.h user/lib/*/*.h include/*.h)

PROGS      := $(BUILD)/xfabd $(BUILD)/xfabctl $(BUILD)/xfab-roce $(BUILD)/xfab-lbsim \
	      $(BUILD)/xfab-compile-bench $(BUILD)/xfab-stackcheck \
	      $(BUILD)/xfab-bench $(BUILD)/bench.bpf.o
# Every tests/unit/test_X.c is a unit suite (built plain and with ASan/UBSan);
# every tests/bpf/test_X.c a BPF packet suite: adding a file adds the suite.
UNIT_NAMES := $(patsubst tests/unit/test_%.c,%,$(wildcard tests/unit/test_*.c))
UNIT_TESTS := $(foreach n,$(UNIT_NAMES),$(BUILD)/test_$(n) $(BUILD)/test_$(n)_asan)
BPF_TESTS  := $(patsubst tests/bpf/test_%.c,$(BUILD)/test_%,$(wildcard tests/bpf/test_*.c))
TESTS      := $(UNIT_TESTS) $(BPF_TESTS)

.PHONY: all deps test test-unit test-bpf test-netns check format demo bench mutate clean
# A recipe that fails leaves no half-written target behind.
.DELETE_ON_ERROR:

all: $(PROGS) $(TESTS)

$(BUILD):
	mkdir -p $@

$(BUILD)/xfab.bpf.o: $(BPF_SRC) $(BPF_HDRS) | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/xfab.skel.h: $(BUILD)/xfab.bpf.o
	$(BPFTOOL) gen skeleton $< name xfab > $@

# -MMD: an object depends on what it includes (only objects that include the
# skeleton rebuild when the BPF program changes), and the
# skeleton exists first. An object without its .d is rebuilt.
$(BUILD)/obj/%.o: user/%.c $(USER_HDRS) $(BUILD)/obj/%.d | $(BUILD)/xfab.skel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -Iuser/$(firstword $(subst /, ,$*)) -c $< -o $@

# The library includes no skeleton: its objects (and so the unit tests)
# build without the BPF program.
$(BUILD)/obj/lib/%.o: user/lib/%.c $(USER_HDRS) $(BUILD)/obj/lib/%.d | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -Iuser/lib -c $< -o $@

$(BUILD)/obj/%.d: ;
.PRECIOUS: $(BUILD)/obj/%.d
-include $(LIB_OBJ:.o=.d) $(AGENT_OBJ:.o=.d) $(CTL_OBJ:.o=.d)

$(BUILD)/xfabd: $(AGENT_OBJ) $(LIB_OBJ)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/xfabctl: $(CTL_OBJ) $(LIB_OBJ)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/xfab-roce: tools/xfab-roce.c | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@

# make check: the verifier's stack depth of every program (scripts/check).
$(BUILD)/xfab-stackcheck: tools/xfab-stackcheck.c | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@ -lbpf -lelf -lz

$(BUILD)/xfab-bench: tools/xfab-bench.c $(BUILD)/obj/lib/frame.o | $(BUILD)
	$(CC) $(CFLAGS) $^ -o $@ -lbpf -lelf -lz

$(BUILD)/bench.bpf.o: bench/bench.bpf.c | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/xfab-lbsim: tools/xfab-lbsim.c $(LIB_OBJ) | $(BUILD)
	$(CC) $(CFLAGS) $< $(LIB_OBJ) -o $@ $(LDLIBS)

$(BUILD)/xfab-compile-bench: tools/xfab-compile-bench.c $(LIB_OBJ) | $(BUILD)
	$(CC) $(CFLAGS) $< $(LIB_OBJ) -o $@ $(LDLIBS)

# Unit tests: pure userspace, also built with ASan/UBSan. UNIT_EXTRA: agent
# sources a test needs besides the library.
# test_abi runs xfabctl against pins of another ABI version.
$(BUILD)/test_abi: $(BUILD)/xfabctl
$(BUILD)/test_names $(BUILD)/test_names_asan: UNIT_EXTRA := user/agent/metrics.c -Iuser/agent
# The plain build links the library objects (a one-file library change
# recompiles one object, which make mutate relies on); the ASan/UBSan build
# compiles the library with the sanitizers.
$(BUILD)/test_%: tests/unit/test_%.c $(LIB_OBJ) $(USER_HDRS) | $(BUILD)
	$(CC) $(CFLAGS) $< $(UNIT_EXTRA) $(LIB_OBJ) -o $@ $(LDLIBS) -lcmocka

$(BUILD)/test_%_asan: tests/unit/test_%.c $(LIB_SRC) $(USER_HDRS) | $(BUILD)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $< $(LIB_SRC) $(UNIT_EXTRA) -o $@ $(LDLIBS) -lcmocka

# BPF packet tests: BPF_PROG_TEST_RUN through both entry points. Objects of
# their own, so a library change relinks them and only a BPF change (the
# skeleton) recompiles them.
$(BUILD)/obj/tests/bpf/%.o: tests/bpf/%.c $(wildcard tests/bpf/*.h) $(USER_HDRS) $(BUILD)/xfab.skel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/bpf -c $< -o $@

$(BUILD)/test_%: $(BUILD)/obj/tests/bpf/test_%.o $(BUILD)/obj/tests/bpf/harness.o $(LIB_OBJ) | $(BUILD)
	$(CC) $(CFLAGS) $(filter %.o,$^) -o $@ $(LDLIBS) -lcmocka -lm

# Named, so make keeps them (not intermediate files).
BPF_TEST_OBJ := $(patsubst tests/bpf/%.c,$(BUILD)/obj/tests/bpf/%.o,$(wildcard tests/bpf/*.c))
$(BPF_TEST_OBJ): $(BUILD)/xfab.skel.h

# test_packets runs xfabctl against the maps it pinned.
$(BUILD)/test_packets: $(BUILD)/xfabctl

# Mutation testing: every one-line mutation in tests/mutations.txt, applied
# one at a time to a copy of the tree, must make the unit or bpf suites fail.
mutate: all
	tests/mutate

deps:
	scripts/install-deps

test: all
	tests/run-all

test-unit: $(UNIT_TESTS)
	tests/run-all unit

test-bpf: $(BPF_TESTS) $(BUILD)/xfabd
	tests/run-all bpf

test-netns: $(PROGS)
	tests/run-all netns

check: all
	scripts/check

format:
	clang-format -i $(wildcard bpf/*.c bpf/*.h include/*.h user/*/*.[ch] user/lib/*/*.[ch] tests/*/*.[ch] tools/*.c bench/*.c)

demo:
	scripts/install-deps
	$(MAKE) all
	scripts/demo

# Benchmarks: forwarding rates against same-run baselines (regenerates
# docs/PERFORMANCE.md, writes bench-out/bench.json) and load-balancing figures.
bench: all
	mkdir -p bench-out
	scripts/bench --rounds 5 --seconds 2
	$(BUILD)/xfab-lbsim --flows 1000 --links 16 --trials 200 --json bench-out/lb.json

clean:
	rm -rf $(BUILD)
