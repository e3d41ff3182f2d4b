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
# --as-needed: a program records only the libraries it calls (a tool that
# takes nothing of libbpf from libxfab.a needs no libbpf).
LDLIBS     := -Wl,--as-needed -lbpf -lelf -lz -lmnl -lm
SAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

BPF_SRC    := bpf/xfab.bpf.c
BPF_HDRS   := $(wildcard bpf/*.h) $(wildcard include/*.h)
# user/lib: the library (no main, no global state); user/agent: xfabd;
# user/ctl: xfabctl. Every .c in a folder is part of it.
LIB_SRC    := $(sort $(wildcard user/lib/*.c user/lib/*/*.c))
AGENT_SRC  := $(sort $(wildcard user/agent/*.c))
CTL_SRC    := $(sort $(wildcard user/ctl/*.c))
LIB_OBJ    := $(LIB_SRC:user/%.c=$(BUILD)/obj/%.o)
LIB_OBJ_ASAN := $(LIB_SRC:user/%.c=$(BUILD)/obj-asan/%.o)
AGENT_OBJ  := $(AGENT_SRC:user/%.c=$(BUILD)/obj/%.o)
CTL_OBJ    := $(CTL_SRC:user/%.c=$(BUILD)/obj/%.o)
# The library as one archive that every program and test links: the linker
# takes from it only the objects a program uses (and what they use).
LIB_A      := $(BUILD)/libxfab.a
LIB_A_ASAN := $(BUILD)/libxfab_asan.a

# Every tools/X.c is a program build/X, and so is every folder tools/X/ (a
# tool split into files: its .c files and its private header).
# A tool's own BPF program (tools/X.bpf.c) is no program of its own: see
# xfab-linkfault's rules below.
TOOL_BPF   := $(wildcard tools/*.bpf.c)
TOOL_SRC   := $(filter-out $(TOOL_BPF),$(wildcard tools/*.c tools/*/*.c))
TOOL_DIRS  := $(sort $(patsubst tools/%/,%,$(dir $(wildcard tools/*/*.c))))
TOOLS      := $(patsubst tools/%.c,$(BUILD)/%,$(filter-out $(TOOL_BPF),$(wildcard tools/*.c))) \
	      $(addprefix $(BUILD)/,$(TOOL_DIRS))
# the bench's own programs: bench/X.bpf.c -> $(BUILD)/X.bpf.o
BENCH_OBJS := $(patsubst bench/%.bpf.c,$(BUILD)/%.bpf.o,$(wildcard bench/*.bpf.c))
PROGS      := $(BUILD)/xfabd $(BUILD)/xfabctl $(TOOLS) $(BENCH_OBJS)
# Every tests/unit/test_X.c is a unit suite (built plain and with ASan/UBSan);
# every tests/bpf/test_X.c a BPF packet suite: adding a file adds the suite.
UNIT_NAMES := $(patsubst tests/unit/test_%.c,%,$(wildcard tests/unit/test_*.c))
UNIT_PLAIN := $(foreach n,$(UNIT_NAMES),$(BUILD)/test_$(n))
UNIT_ASAN  := $(foreach n,$(UNIT_NAMES),$(BUILD)/test_$(n)_asan)
UNIT_TESTS := $(UNIT_PLAIN) $(UNIT_ASAN)
BPF_TESTS  := $(patsubst tests/bpf/test_%.c,$(BUILD)/test_%,$(wildcard tests/bpf/test_*.c))
TESTS      := $(UNIT_TESTS) $(BPF_TESTS)

.PHONY: all deps test test-unit test-bpf test-netns check format demo bench bench-smoke \
	bench-compare mutate clean
# A recipe that fails leaves no half-written target behind.
.DELETE_ON_ERROR:

all: $(PROGS) $(TESTS) $(BUILD)/fuzz_packets

$(BUILD):
	mkdir -p $@

$(BUILD)/xfab.bpf.o: $(BPF_SRC) $(BPF_HDRS) | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/xfab.skel.h: $(BUILD)/xfab.bpf.o
	$(BPFTOOL) gen skeleton $< name xfab > $@

# xfab-linkfault's fault program (not the switch's, so not in bpf/): its own
# object and skeleton, which the tool's object includes.
$(BUILD)/linkfault.bpf.o: tools/xfab-linkfault.bpf.c include/xfab_linkfault.h | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/linkfault.skel.h: $(BUILD)/linkfault.bpf.o
	$(BPFTOOL) gen skeleton $< name linkfault > $@

$(BUILD)/obj/tools/xfab-linkfault.o $(BUILD)/obj/tests/bpf/test_linkfault.o: \
	| $(BUILD)/linkfault.skel.h

# Objects: the library, the agent, the CLI and every test file are compiled
# once plain (build/obj/...) and once more with ASan/UBSan (build/obj-asan/...,
# only what the _asan unit suites link), and every program links the objects.
# -MMD: an object depends on exactly what it includes (a header change
# rebuilds only its includers; only objects that include the skeleton
# rebuild when the BPF program changes). An object without its .d is
# rebuilt. The skeleton exists before the objects that include it (the BPF
# tests', and the sources that name it): the library and the unit suites
# build without the BPF toolchain.
OBJ_DIRS   := $(BUILD)/obj $(BUILD)/obj-asan
# -I the object's own folder (user/agent, user/ctl)
obj_incs    = -Iuser/$(firstword $(subst /, ,$*))
$(BUILD)/obj/%.o: user/%.c $(BUILD)/obj/%.d
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP $(obj_incs) -c $< -o $@

$(BUILD)/obj-asan/%.o: user/%.c $(BUILD)/obj-asan/%.d
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -MMD -MP $(obj_incs) -c $< -o $@

# Test files: tests/unit/X.c -> obj/tests/unit/X.o, tests/bpf/X.c likewise.
$(BUILD)/obj/tests/%.o: tests/%.c $(BUILD)/obj/tests/%.d
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -I$(dir $<) $(UNIT_INC) -c $< -o $@

$(BUILD)/obj-asan/tests/%.o: tests/%.c $(BUILD)/obj-asan/tests/%.d
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -MMD -MP -I$(dir $<) $(UNIT_INC) -c $< -o $@

$(BUILD)/obj/%.d: ;
$(BUILD)/obj-asan/%.d: ;
.PRECIOUS: $(BUILD)/obj/%.d $(BUILD)/obj-asan/%.d
# Every .d named as a target: a .d make only infers is an intermediate file,
# and a missing intermediate does not rebuild its object (an object built
# before -MMD, or whose .d was lost, would then never see a header change).
USER_SRC_ALL := $(LIB_SRC) $(AGENT_SRC) $(CTL_SRC)
TEST_SRC_ALL := $(wildcard tests/unit/*.c tests/bpf/*.c)
DEP_FILES  := $(foreach d,$(OBJ_DIRS),$(USER_SRC_ALL:user/%.c=$(d)/%.d) \
		$(TEST_SRC_ALL:%.c=$(d)/%.d)) $(patsubst %.c,$(BUILD)/obj/%.d,$(TOOL_SRC))
$(DEP_FILES):
-include $(wildcard $(foreach d,$(OBJ_DIRS),$(d)/*/*.d $(d)/*/*/*.d))
BPF_TEST_OBJ := $(patsubst tests/bpf/%.c,$(BUILD)/obj/tests/bpf/%.o,$(wildcard tests/bpf/*.c))
SKEL_OBJ   := $(patsubst user/%.c,$(BUILD)/obj/%.o,$(shell grep -l 'xfab\.skel\.h' $(LIB_SRC) $(AGENT_SRC) $(CTL_SRC)))
$(SKEL_OBJ) $(BPF_TEST_OBJ): | $(BUILD)/xfab.skel.h

# Rebuilt whole (rm first): an object whose source went away leaves too.
$(LIB_A): $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(LIB_A_ASAN): $(LIB_OBJ_ASAN)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/xfabd: $(AGENT_OBJ) $(LIB_A)
	$(CC) $(CFLAGS) $(AGENT_OBJ) $(LIB_A) -o $@ $(LDLIBS)

$(BUILD)/xfabctl: $(CTL_OBJ) $(LIB_A)
	$(CC) $(CFLAGS) $(CTL_OBJ) $(LIB_A) -o $@ $(LDLIBS)

# Tools: objects of their own too (obj/tools/X.o, obj/tools/X/Y.o), linked
# with what they use.
$(BUILD)/obj/tools/%.o: tools/%.c $(BUILD)/obj/tools/%.d
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# Every tool is its object (or its folder's objects) and the library.
$(filter-out $(addprefix $(BUILD)/,$(TOOL_DIRS)),$(TOOLS)): $(BUILD)/%: $(BUILD)/obj/tools/%.o $(LIB_A) | $(BUILD)
	$(CC) $(CFLAGS) $< $(LIB_A) -o $@ $(LDLIBS)

define tool_dir
$(BUILD)/$(1): $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tools/$(1)/*.c)) $(LIB_A) | $(BUILD)
	$$(CC) $$(CFLAGS) $$(filter %.o,$$^) $(LIB_A) -o $$@ $$(LDLIBS)
endef
$(foreach t,$(TOOL_DIRS),$(eval $(call tool_dir,$(t))))

$(BENCH_OBJS): $(BUILD)/%.bpf.o: bench/%.bpf.c | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# Unit tests: pure userspace, also built with ASan/UBSan, linked with the
# library. A suite of an agent part (which needs nothing of main.c) links
# that part's objects too, and sees user/agent's headers: one line each,
# $(call unit_agent,SUITE,OBJECTS) (UNIT_EXTRA, UNIT_INC); a suite of
# xfabctl's parts likewise, $(call unit_part,SUITE,OBJECTS,ctl).
define unit_part
$(BUILD)/test_$(1) $(BUILD)/test_$(1)_asan: UNIT_EXTRA := $(2)
$(BUILD)/obj/tests/unit/test_$(1).o $(BUILD)/obj-asan/tests/unit/test_$(1).o: UNIT_INC := -Iuser/$(3)
$(BUILD)/test_$(1): $(addprefix $(BUILD)/obj/,$(2))
$(BUILD)/test_$(1)_asan: $(addprefix $(BUILD)/obj-asan/,$(2))
endef
unit_agent = $(call unit_part,$(1),$(2),agent)
# xfabd's metrics writer: metrics.c and the writers of features that keep
# their series beside their code (metrics_FEATURE.c). Linked as objects,
# never through an archive: a metrics_FEATURE.c registers itself from a
# constructor (XFAB_METRICS_WRITER), and an archive member nothing calls
# would be left out with it.
METRICS_OBJ := $(patsubst user/%.c,%.o,$(wildcard user/agent/metrics*.c))
$(eval $(call unit_agent,names,$(METRICS_OBJ)))
$(eval $(call unit_agent,exposition,$(METRICS_OBJ)))
$(eval $(call unit_agent,control,agent/requests.o agent/config_info.o agent/fibsync_status.o))
# test_drain serves port-drain through requests.c with drain.c (the groups, holds: recorded)
$(eval $(call unit_agent,drain,agent/drain.o agent/requests.o))
$(eval $(call unit_agent,control_socket,agent/control.o agent/requests.o))
$(eval $(call unit_agent,netlink,agent/netlink.o))
# test_qdisc checks the HTB class arguments qdisc.c builds (weights).
$(eval $(call unit_agent,qdisc,agent/qdisc.o))
# test_fibsync plays the kernel's dump in place of netlink.c's.
$(eval $(call unit_agent,fibsync,agent/fibsync.o))
# test_owner finds routing daemons in a /proc tree it writes, and in /proc.
$(eval $(call unit_agent,owner,agent/owner.o))
# test_fabric_svg draws reports it builds with xfabctl's SVG writer.
$(eval $(call unit_part,fabric_svg,ctl/fabric_svg.o ctl/fabric_view.o,ctl))
# test_abi runs xfabctl against pins of another ABI version.
$(BUILD)/test_abi: $(BUILD)/xfabctl
# test_restart runs xfabd itself (and xfabctl restart) on veth ports.
$(BUILD)/test_restart: $(BUILD)/xfabd $(BUILD)/xfabctl
# test_sonic_catalogue runs scripts/sonic-catalogue and its sonic_xpath.py (small YANG modules
# of its own, planted in a tmp dir): a prerequisite, so that tests/mutate
# (make -q) sees a mutant of the script reach the suite.
$(BUILD)/test_sonic_catalogue $(BUILD)/test_sonic_catalogue_asan: scripts/sonic-catalogue scripts/sonic_xpath.py
# test_feature checks the feature registry against the tree's own files
# (bpf/, the ABI, the docs) and xfabd's metrics writers.
$(eval $(call unit_agent,feature,$(METRICS_OBJ)))
# test_layering runs scripts/layer-check over the tree's sources and every
# part's objects, so it is built after them; order-only, since a change in
# them changes nothing the test binary holds (tests/mutate asks make -q
# which suites a change can affect).
$(BUILD)/test_layering $(BUILD)/test_layering_asan: | $(BUILD)/xfabd $(BUILD)/xfabctl $(TOOLS)
$(UNIT_PLAIN): $(BUILD)/test_%: $(BUILD)/obj/tests/unit/test_%.o $(LIB_A) | $(BUILD)
	$(CC) $(CFLAGS) $< $(addprefix $(BUILD)/obj/,$(UNIT_EXTRA)) $(LIB_A) -o $@ $(LDLIBS) -lcmocka

$(UNIT_ASAN): $(BUILD)/test_%_asan: $(BUILD)/obj-asan/tests/unit/test_%.o $(LIB_A_ASAN) | $(BUILD)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $< $(addprefix $(BUILD)/obj-asan/,$(UNIT_EXTRA)) $(LIB_A_ASAN) -o $@ $(LDLIBS) -lcmocka

# BPF packet tests: BPF_PROG_TEST_RUN through both entry points. Objects of
# their own, so a library change relinks them and only a BPF change (the
# skeleton) recompiles them.
$(BPF_TESTS): $(BUILD)/test_%: $(BUILD)/obj/tests/bpf/test_%.o $(BUILD)/obj/tests/bpf/harness.o $(LIB_A) | $(BUILD)
	$(CC) $(CFLAGS) $(filter %.o,$^) $(LIB_A) -o $@ $(LDLIBS) -lcmocka

# test_packets and test_trace run xfabctl against the maps they pinned.
$(BUILD)/test_packets $(BUILD)/test_trace: $(BUILD)/xfabctl
# test_pfcshow runs xfabctl and the metrics writer against maps it planted.
$(BUILD)/test_pfcshow: $(BUILD)/xfabctl $(addprefix $(BUILD)/obj/,$(METRICS_OBJ))
$(BUILD)/obj/tests/bpf/test_pfcshow.o: UNIT_INC := -Iuser/agent
# test_copp too: show copp and the CoPP series over the loaded data plane's maps.
$(BUILD)/test_copp: $(BUILD)/xfabctl $(addprefix $(BUILD)/obj/,$(METRICS_OBJ))
$(BUILD)/obj/tests/bpf/test_copp.o: UNIT_INC := -Iuser/agent
# test_acl checks show acl and the ACL series the same way.
$(BUILD)/test_acl: $(BUILD)/xfabctl $(addprefix $(BUILD)/obj/,$(METRICS_OBJ))
$(BUILD)/obj/tests/bpf/test_acl.o: UNIT_INC := -Iuser/agent

# make fuzz-packets: structured and random frames through both datapaths
# against the reference model (tests/fuzz/packets, docs/TESTING.md); root.
FUZZ_PK_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tests/fuzz/packets/*.c))
$(BUILD)/fuzz_packets: $(FUZZ_PK_OBJ) $(BUILD)/obj/tests/bpf/harness.o $(LIB_A) | $(BUILD)
	$(CC) $(CFLAGS) $(filter %.o,$^) $(LIB_A) -o $@ $(LDLIBS)
$(FUZZ_PK_OBJ): UNIT_INC := -Itests/bpf
$(FUZZ_PK_OBJ): | $(BUILD)/xfab.skel.h
$(FUZZ_PK_OBJ:.o=.d): ;
-include $(wildcard $(BUILD)/obj/tests/fuzz/packets/*.d)

# FUZZ_ARGS: e.g. "--seed 7 --frames 1000000" or "--long"
.PHONY: fuzz-packets
fuzz-packets: $(BUILD)/fuzz_packets
	$(BUILD)/fuzz_packets $(FUZZ_ARGS)

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
	clang-format -i $(wildcard bpf/*.c bpf/*.h include/*.h user/*/*.[ch] user/lib/*/*.[ch] tests/*/*.[ch] tests/fuzz/*/*.[ch] tools/*.c tools/*/*.[ch] bench/*.c)

demo:
	scripts/install-deps
	$(MAKE) all
	scripts/demo

# Benchmarks: forwarding rates against same-run baselines (regenerates
# docs/PERFORMANCE.md, writes bench-out/bench.json) and load-balancing figures.
bench: all
	mkdir -p bench-out
	scripts/bench --rounds 5 --seconds 1
	$(BUILD)/xfab-lbsim --flows 1000 --links 16 --trials 200 --json bench-out/lb.json

# One short round of a few configurations (under a minute; CI runs it as
# tests/netns/test_bench_smoke.sh): the bench keeps running, no figure of
# it is a result. Writes bench-out/smoke.json.
bench-smoke: all
	mkdir -p bench-out
	scripts/bench --smoke

# make bench-compare OLD.json NEW.json (or OLD=... NEW=...): per-configuration
# ratios, each as a share of its own run's redirect; flags any > 10% slower.
ifeq (bench-compare,$(firstword $(MAKECMDGOALS)))
  CMP_ARGS := $(wordlist 2,3,$(MAKECMDGOALS))
  OLD ?= $(word 1,$(CMP_ARGS))
  NEW ?= $(word 2,$(CMP_ARGS))
  $(eval $(CMP_ARGS):;@:)
endif
bench-compare:
	@test -n "$(OLD)" -a -n "$(NEW)" || { echo "usage: make bench-compare OLD.json NEW.json" >&2; exit 2; }
	scripts/bench-compare $(OLD) $(NEW)

clean:
	rm -rf $(BUILD)

# libFuzzer targets of the parsers (tests/fuzz/lib, docs/TESTING.md): the
# library compiled once more with clang and -fsanitize=fuzzer-no-link plus
# ASan/UBSan (build/fuzz/obj/...), each target linked with -fsanitize=fuzzer.
# make fuzz runs each FUZZ_SECONDS (60) from its seeds (built from tests/,
# testbeds/ and docs/ by tests/fuzz/lib/gen-seeds) and fails on any
# finding; make fuzz-smoke runs each 10 s.
FUZZ_CC      ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  := -O1 -g -Wall -Wextra -Wno-missing-field-initializers -std=gnu11 \
		-Iinclude -Iuser/lib $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_NAMES   := $(patsubst tests/fuzz/lib/fuzz_%.c,%,$(wildcard tests/fuzz/lib/fuzz_*.c))
FUZZ_TARGETS := $(foreach n,$(FUZZ_NAMES),$(FUZZ_DIR)/fuzz_$(n))
FUZZ_LIB_OBJ := $(LIB_SRC:user/%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_LIB_A   := $(FUZZ_DIR)/libxfab.a

$(FUZZ_DIR)/obj/%.o: user/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP $(obj_incs) -c $< -o $@

$(FUZZ_DIR)/obj/tests/%.o: tests/fuzz/lib/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -DXFAB_FUZZ_ENTRY -MMD -MP -Iuser/agent -Itests/unit -c $< -o $@

-include $(wildcard $(FUZZ_DIR)/obj/*/*.d $(FUZZ_DIR)/obj/*/*/*.d)

# fuzz_control serves requests with xfabd's own requests.c
$(FUZZ_DIR)/fuzz_control: $(FUZZ_DIR)/obj/agent/requests.o
$(FUZZ_LIB_A): $(FUZZ_LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_TARGETS): $(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/tests/fuzz_%.o $(FUZZ_LIB_A)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $(filter %.o,$^) $(FUZZ_LIB_A) -o $@ $(LDLIBS)

# The seeds, made again when what they are made from changes.
$(FUZZ_DIR)/seeds/.stamp: tests/fuzz/lib/gen-seeds scripts/xfab-lab scripts/lab_common.py \
		$(wildcard scripts/xfablab/*.py tests/unit/*.c tests/bpf/*.c docs/*.md testbeds/*.json)
	rm -rf $(FUZZ_DIR)/seeds
	tests/fuzz/lib/gen-seeds $(FUZZ_DIR)/seeds
	touch $@

.PHONY: fuzz fuzz-smoke fuzz-build
fuzz-build: $(FUZZ_TARGETS) $(FUZZ_DIR)/seeds/.stamp

fuzz: fuzz-build
	BUILD=$(BUILD) tests/fuzz/lib/run --seconds $(FUZZ_SECONDS) $(FUZZ_NAMES)

fuzz-smoke: fuzz-build
	BUILD=$(BUILD) tests/fuzz/lib/run --seconds 10 $(FUZZ_NAMES)

# test_fuzz_regress replays tests/fuzz/lib/regress/ through the targets'
# own functions, built as a plain unit suite (gcc, and with ASan/UBSan).
FUZZ_UNIT_OBJ := $(FUZZ_NAMES:%=tests/fuzz/lib/fuzz_%.o) agent/requests.o
$(BUILD)/test_fuzz_regress $(BUILD)/test_fuzz_regress_asan: UNIT_EXTRA := $(FUZZ_UNIT_OBJ)
$(BUILD)/test_fuzz_regress: $(addprefix $(BUILD)/obj/,$(FUZZ_UNIT_OBJ))
$(BUILD)/test_fuzz_regress_asan: $(addprefix $(BUILD)/obj-asan/,$(FUZZ_UNIT_OBJ))
$(BUILD)/obj/tests/unit/test_fuzz_regress.o $(BUILD)/obj-asan/tests/unit/test_fuzz_regress.o: \
	UNIT_INC := -Itests/fuzz/lib
$(foreach d,$(OBJ_DIRS),$(FUZZ_NAMES:%=$(d)/tests/fuzz/lib/fuzz_%.o)): \
	UNIT_INC := -Iuser/agent -Itests/unit
-include $(wildcard $(foreach d,$(OBJ_DIRS),$(d)/tests/fuzz/lib/*.d))

# ---- install, uninstall, deb (docs/OPERATIONS.md) ----
# make install [PREFIX=/usr/local] [DESTDIR=...]: xfabd in sbin, xfabctl,
# xfab-lab and the operator's tools in bin (xfab-lab's package, xfablab, in
# lib/xfab/python), the BPF object under lib/xfab
# (xfabd carries its own copy in the skeleton; this one is for bpftool and
# xfab-stackcheck), lib/xfab/bin: links to the installed programs for
# xfab-lab, man pages, bash completion, the systemd unit, testbeds and
# examples. make uninstall removes exactly what install put there.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
SBINDIR    ?= $(PREFIX)/sbin
XFAB_LIBDIR ?= $(PREFIX)/lib/xfab
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
DOCDIR     ?= $(DATADIR)/doc/xfab
UNITDIR    ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
INST_TOOLS := xfab-roce xfab-pfcgen xfab-coll xfab-te xfab-lbsim xfab-linkfault
INST_MAN8  := xfabd xfabctl xfab-lab
INST_MAN5  := xfab.json
LAB_PY     := $(wildcard scripts/xfablab/*.py)
LAB_PYDIR  := $(XFAB_LIBDIR)/python/xfablab
INST_FILES := $(SBINDIR)/xfabd $(BINDIR)/xfabctl $(addprefix $(BINDIR)/,$(INST_TOOLS)) \
	      $(BINDIR)/xfab-lab $(BINDIR)/xfab-frr-config \
	      $(addprefix $(LAB_PYDIR)/,$(notdir $(LAB_PY))) \
	      $(BINDIR)/xfab-metrics-proxy $(XFAB_LIBDIR)/xfab.bpf.o \
	      $(addprefix $(XFAB_LIBDIR)/bin/,xfabd xfabctl $(INST_TOOLS)) \
	      $(addprefix $(MANDIR)/man8/,$(addsuffix .8,$(INST_MAN8))) \
	      $(addprefix $(MANDIR)/man5/,$(addsuffix .5,$(INST_MAN5))) \
	      $(BASHCOMPDIR)/xfabctl $(UNITDIR)/xfabd@.service \
	      $(addprefix $(DATADIR)/xfab/testbeds/,$(notdir $(wildcard testbeds/*.json))) \
	      $(addprefix $(DATADIR)/xfab/testbeds/sonic/,$(notdir $(wildcard testbeds/sonic/*.json))) \
	      $(DATADIR)/xfab/sonic/catalogue.json \
	      $(addprefix $(DOCDIR)/examples/,$(notdir $(wildcard contrib/examples/*))) \
	      $(addprefix $(DOCDIR)/grafana/,xfab-fabric.json xfab-switch.json)
INST_DIRS  := $(XFAB_LIBDIR)/bin $(LAB_PYDIR) $(XFAB_LIBDIR)/python $(XFAB_LIBDIR) \
	      $(DATADIR)/xfab/testbeds/sonic $(DATADIR)/xfab/testbeds $(DATADIR)/xfab/sonic \
	      $(DATADIR)/xfab \
	      $(DOCDIR)/examples $(DOCDIR)/grafana $(DOCDIR)

.PHONY: install uninstall deb
install: $(BUILD)/xfabd $(BUILD)/xfabctl $(addprefix $(BUILD)/,$(INST_TOOLS)) $(BUILD)/xfab.bpf.o
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(XFAB_LIBDIR)/bin \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(DATADIR)/xfab/testbeds/sonic $(DESTDIR)$(DATADIR)/xfab/sonic \
		$(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR)/grafana $(DESTDIR)$(LAB_PYDIR)
	install -m 755 $(BUILD)/xfabd $(DESTDIR)$(SBINDIR)/xfabd
	install -m 755 $(BUILD)/xfabctl $(addprefix $(BUILD)/,$(INST_TOOLS)) $(DESTDIR)$(BINDIR)/
	for s in xfab-lab xfab-frr-config; do \
		sed 's|^PKG_DIR = ".*"|PKG_DIR = "$(shell realpath -m --relative-to=$(BINDIR) $(XFAB_LIBDIR)/python)"|' \
			scripts/$$s >$(DESTDIR)$(BINDIR)/$$s && chmod 755 $(DESTDIR)$(BINDIR)/$$s || exit 1; done
	install -m 644 $(LAB_PY) $(DESTDIR)$(LAB_PYDIR)/
	sed 's|os.path.join(ROOT, "build")|"$(XFAB_LIBDIR)/bin"|' scripts/xfablab/common.py \
		>$(DESTDIR)$(LAB_PYDIR)/common.py
	install -m 755 scripts/xfab-metrics-proxy $(DESTDIR)$(BINDIR)/
	install -m 644 $(BUILD)/xfab.bpf.o $(DESTDIR)$(XFAB_LIBDIR)/
	ln -sf $(shell realpath -m --relative-to=$(XFAB_LIBDIR)/bin $(SBINDIR))/xfabd \
		$(DESTDIR)$(XFAB_LIBDIR)/bin/xfabd
	for p in xfabctl $(INST_TOOLS); do \
		ln -sf $(shell realpath -m --relative-to=$(XFAB_LIBDIR)/bin $(BINDIR))/$$p \
			$(DESTDIR)$(XFAB_LIBDIR)/bin/$$p || exit 1; done
	install -m 644 $(addprefix docs/man/,$(addsuffix .8,$(INST_MAN8))) $(DESTDIR)$(MANDIR)/man8/
	install -m 644 $(addprefix docs/man/,$(addsuffix .5,$(INST_MAN5))) $(DESTDIR)$(MANDIR)/man5/
	install -m 644 contrib/bash-completion/xfabctl $(DESTDIR)$(BASHCOMPDIR)/xfabctl
	sed 's|@SBINDIR@|$(SBINDIR)|g' contrib/systemd/xfabd@.service.in \
		>$(DESTDIR)$(UNITDIR)/xfabd@.service
	chmod 644 $(DESTDIR)$(UNITDIR)/xfabd@.service
	install -m 644 testbeds/*.json $(DESTDIR)$(DATADIR)/xfab/testbeds/
	install -m 644 testbeds/sonic/*.json $(DESTDIR)$(DATADIR)/xfab/testbeds/sonic/
	install -m 644 config/sonic/catalogue.json $(DESTDIR)$(DATADIR)/xfab/sonic/
	install -m 644 contrib/examples/* $(DESTDIR)$(DOCDIR)/examples/
	install -m 644 docs/grafana/xfab-fabric.json contrib/grafana/xfab-switch.json \
		$(DESTDIR)$(DOCDIR)/grafana/

# Removes the files install put there, then the folders of xfab's own that
# are left empty (never bin, man8 and the like).
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INST_FILES))
	for d in $(INST_DIRS); do \
		[ ! -d "$(DESTDIR)$$d" ] || rmdir --ignore-fail-on-non-empty "$(DESTDIR)$$d"; done

# A Debian package (debian/, debhelper; 3-7 minutes): dpkg-buildpackage
# writes ../xfab_VERSION_ARCH.deb (and .buildinfo, .changes), moved into
# $(BUILD)/deb. lintian must find no error and no warning (what is
# overridden, and why: debian/README.Debian). Needs debhelper and lintian
# (scripts/install-deps).
deb:
	rm -rf $(BUILD)/deb
	dpkg-buildpackage -b -us -uc -j2
	mkdir -p $(BUILD)/deb
	mv ../xfab_*.deb ../xfab_*.buildinfo ../xfab_*.changes $(BUILD)/deb/
	lintian --fail-on error,warning $(BUILD)/deb/xfab_*.deb

