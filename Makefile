# Builds webnnd, libwebnn, the tools and the tests out of tree into $(BUILD); source lists are wildcards.
BUILD ?= build
CC ?= cc
SAN ?=
OPT ?= -O2

DEB_PACKAGES := build-essential pkg-config libuv1-dev protobuf-c-compiler libprotobuf-c-dev \
	ocl-icd-opencl-dev opencl-headers pocl-opencl-icd libclblast-dev libjansson-dev libdnnl-dev libseccomp-dev clinfo valgrind clang \
	libonnx-dev libonnx-testdata

CPPFLAGS += -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=120 -DCL_USE_DEPRECATED_OPENCL_1_2_APIS \
	-I. -Iclient/include -Iimporters/include -I$(BUILD)/gen
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

PROTO_SRC := $(wildcard proto/*.c)
CLIENT_SRC := $(wildcard client/*.c)
DAEMON_SRC := $(filter-out daemon/main.c,$(wildcard daemon/*.c daemon/*/*.c daemon/*/*/*.c)) \
	$(wildcard sandbox/*.c)
KERNELS := $(sort $(wildcard kernels/*.cl))
# A tool is client/tools/<name>.c or a directory client/tools/<name>/ of sources; both link
# client/tools/common (the comparison rules the tests share) and libwebnn.
TOOLS_SRC := $(wildcard client/tools/*.c)
TOOLS_DIRS := $(filter-out common,$(notdir $(patsubst %/,%,$(wildcard client/tools/*/))))
TOOLS_COMMON_SRC := $(wildcard client/tools/common/*.c)
TEST_SRC := $(wildcard tests/*.c)
# libwebnn-import: the model importers (importers/<format>/), a client-side library of its own.
IMPORT_SRC := $(wildcard importers/*.c importers/*/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

PROTO_OBJ := $(call obj,$(PROTO_SRC)) $(BUILD)/obj/gen/webnn.pb-c.o
CLIENT_OBJ := $(call obj,$(CLIENT_SRC))
DAEMON_OBJ := $(call obj,$(DAEMON_SRC)) $(BUILD)/obj/gen/kernels.o $(BUILD)/obj/gen/kernels_index.o
TOOLS_BIN := $(patsubst client/tools/%.c,$(BUILD)/bin/%,$(TOOLS_SRC)) \
	$(addprefix $(BUILD)/bin/,$(TOOLS_DIRS))

LIB_PROTO := $(BUILD)/lib/libwnnproto.a
LIB_CLIENT := $(BUILD)/lib/libwebnn.a
LIB_TOOLS := $(BUILD)/lib/libwnntools.a
LIB_IMPORT := $(BUILD)/lib/libwebnn-import.a
LIB_CLIENT_SO := $(BUILD)/lib/libwebnn.so.0
LIB_DAEMON := $(BUILD)/lib/libwebnnd.a
DAEMON_BIN := $(BUILD)/bin/webnnd
# webnnd with the sandbox's test hooks (tests/test_sandbox.c): the sources that hold them are
# compiled again with -DWNN_TEST_HOOKS; webnnd itself never contains them.
TESTHOOKS_BIN := $(BUILD)/bin/webnnd-testhooks
TESTHOOKS_SRC := daemon/main.c daemon/router.c sandbox/sandbox.c
TESTHOOKS_OBJ := $(patsubst %.c,$(BUILD)/obj-testhooks/%.o,$(TESTHOOKS_SRC))
TEST_BIN := $(BUILD)/bin/webnn-tests

.PHONY: all deps check check-asan check-all valgrind bench clean demo
.SECONDARY:
all: $(DAEMON_BIN) $(TESTHOOKS_BIN) $(LIB_CLIENT) $(LIB_CLIENT_SO) $(LIB_IMPORT) $(TOOLS_BIN) $(TEST_BIN)

# Installs the Debian packages the build, the daemon and the tests need; safe to re-run.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	else echo "all Debian dependencies are installed"; fi

$(PROTO_GEN_C) $(PROTO_GEN_H): proto/webnn.proto
	@mkdir -p $(BUILD)/gen
	protoc-c --c_out=$(BUILD)/gen proto/webnn.proto

# The public operator list (installed beside webnn.h) is generated from the op table.
$(OPS_GEN_H): proto/ops.def client/gen_webnn_ops.sh
	@mkdir -p $(dir $@)
	sh client/gen_webnn_ops.sh proto/ops.def > $@.tmp && mv $@.tmp $@

# Every source depends on the generated headers existing (order-only; -MMD tracks the rest).
$(BUILD)/obj/%.o: %.c | $(PROTO_GEN_H) $(OPS_GEN_H)
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
$(LIB_CLIENT): $(CLIENT_OBJ) $(PROTO_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(LIB_CLIENT_SO): $(CLIENT_OBJ) $(PROTO_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libwebnn.so.0 $(LDFLAGS) -o $@ $^ $(LDLIBS_CLIENT)
	ln -sf libwebnn.so.0 $(BUILD)/lib/libwebnn.so
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
$(call obj,$(IMPORT_SRC) $(TEST_SRC) $(TOOLS_COMMON_SRC) $(wildcard client/tools/webnn-run/*.c)): | $(ONNX_GEN_H)
# import.c refers to the format entry points weakly until both importers are merged, and a weak
# reference does not pull an archive member: the programs that import ask for them by name.
$(TEST_BIN) $(TOOLS_BIN): LDFLAGS += -Wl,-u,wnni_onnx_load -Wl,-u,wnni_onnx_read_tensor_pb \
	-Wl,-u,wnni_npy_read
$(LIB_TOOLS): $(call obj,$(TOOLS_COMMON_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(LIB_DAEMON): $(DAEMON_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(DAEMON_BIN): $(BUILD)/obj/daemon/main.o $(LIB_DAEMON) $(LIB_PROTO)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_DAEMON)

$(BUILD)/obj-testhooks/%.o: %.c | $(PROTO_GEN_H) $(OPS_GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DWNN_TEST_HOOKS $(CFLAGS) -c $< -o $@
$(TESTHOOKS_BIN): $(TESTHOOKS_OBJ) $(filter-out $(call obj,$(TESTHOOKS_SRC)),$(DAEMON_OBJ)) $(LIB_PROTO)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_DAEMON)

$(BUILD)/bin/%: $(BUILD)/obj/client/tools/%.o $(LIB_TOOLS) $(LIB_IMPORT) $(LIB_CLIENT)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -ljansson $(LDLIBS_CLIENT)
define TOOL_DIR_RULE
$(BUILD)/bin/$(1): $(call obj,$(wildcard client/tools/$(1)/*.c)) $(LIB_TOOLS) $(LIB_IMPORT) $(LIB_CLIENT)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ -ljansson $$(LDLIBS_CLIENT)
endef
$(foreach t,$(TOOLS_DIRS),$(eval $(call TOOL_DIR_RULE,$(t))))

# One test binary: unit tests (proto), backend tests (daemon library), end-to-end (client+daemon).
$(TEST_BIN): $(call obj,$(TEST_SRC)) $(LIB_TOOLS) $(LIB_IMPORT) $(LIB_CLIENT) $(LIB_DAEMON) $(LIB_PROTO)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -ljansson $(LDLIBS_DAEMON)

check: all
	WEBNN_BUILD=$(BUILD) $(TEST_BIN)

check-asan:
	$(MAKE) BUILD=build-asan SAN=1 OPT=-O1 check

# Everything CI runs: the suite, the suite under ASan+UBSan, a bounded pass of every fuzz target
# (FUZZ_TIME seconds each, from fresh seeds), and webnnd under valgrind.
check-all: check check-asan fuzz-smoke valgrind

valgrind: all
	tests/valgrind-daemon.sh $(BUILD)

# make bench: the bench_* tests of webnn-tests (tests/bench_*.c), with bench/: the FMA-peak program
# and the onnxruntime-node peer (bench/ort_bench.js), which is installed with npm into $(BUILD)/ort on
# first use; it is never a test or runtime dependency, and the bench skips it (saying why) without it.
ORT_VERSION := 1.30.0
ORT_DIR := $(BUILD)/ort
ORT_PKG := $(ORT_DIR)/node_modules/onnxruntime-node/package.json
PEAK_BIN := $(BUILD)/bin/peak_flops
.PHONY: bench-ort
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
bench: all $(PEAK_BIN) bench-ort
	WEBNN_BUILD=$(BUILD) WEBNN_BENCH_ORT=$(ORT_DIR)/node_modules/onnxruntime-node $(TEST_BIN) --bench

demo: all
	tests/demo.sh $(BUILD)

clean:
	rm -rf build build-asan

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
$(BUILD)/fuzz/obj/%.o: %.c | $(PROTO_GEN_H) $(OPS_GEN_H)
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
$(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(IMPORT_SRC) tests/fuzz/fuzz_onnx.c): | $(ONNX_GEN_H)
$(BUILD)/fuzz/obj/gen/onnx.pb-c.o: $(BUILD)/gen/onnx/onnx.pb-c.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(filter-out -Werror,$(FUZZ_CFLAGS)) -c $< -o $@
$(BUILD)/fuzz/fuzz_onnx: $(BUILD)/fuzz/obj/tests/fuzz/fuzz_onnx.o $(FUZZ_ONNX_OBJ) $(FUZZ_LIB) | $(DAEMON_BIN)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $(filter %.o %.a,$^) -luv -lprotobuf-c -lpthread -lm
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

-include $(shell find $(BUILD)/obj $(BUILD)/obj-testhooks -name '*.d' 2>/dev/null)

# ---- install (DESTDIR for staging). webnnd goes to libexec: clients reach it through the socket.
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
SYSTEMD_UNITDIR ?= $(LIBDIR)/systemd/system
VERSION := 0.1.0
.PHONY: install
install: $(DAEMON_BIN) $(LIB_CLIENT) $(LIB_CLIENT_SO) $(TOOLS_BIN) $(OPS_GEN_H)
	install -d $(DESTDIR)$(PREFIX)/libexec $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(SYSTEMD_UNITDIR)
	install -m 755 $(DAEMON_BIN) $(DESTDIR)$(PREFIX)/libexec/webnnd
	install -m 755 $(TOOLS_BIN) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(LIB_CLIENT) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIB_CLIENT_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libwebnn.so.0 $(DESTDIR)$(LIBDIR)/libwebnn.so
	install -m 644 client/include/webnn.h client/include/webnn_types.h $(OPS_GEN_H) \
		$(DESTDIR)$(INCLUDEDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@VERSION@|$(VERSION)|' \
		packaging/webnn.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/webnn.pc
	sed -e 's|/usr/libexec/webnnd|$(PREFIX)/libexec/webnnd|' packaging/webnnd.service \
		> $(DESTDIR)$(SYSTEMD_UNITDIR)/webnnd.service
	install -m 644 packaging/webnnd.socket $(DESTDIR)$(SYSTEMD_UNITDIR)/
