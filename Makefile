# npukit - one non-recursive Makefile.
#   make                 build libir, formats and every program into bin/
#   make check           run the whole test suite (SAN=1: ASan+UBSan build)
#   make install PREFIX= programs, man pages and share/npu/
#   make deps            install the Debian packages the build and tests need
#   make demo            the main job on the bundled example

PREFIX  ?= /usr/local
CC      ?= cc
CFLAGS  ?= -O2 -g
WFLAGS   = -std=c11 -Wall -Wextra -Werror -Wno-missing-field-initializers
CPPFLAGS_ALL = -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Ilibir -Iformats -I$(O)/gen $(CPPFLAGS)
LIBS     = -lprotobuf-c -lmsgpackc -lzstd -lzip -lz -lyaml -lm -lpthread

ifeq ($(SAN),1)
O       := build/san
BIN     := build/san/bin
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
O       := build/rel
BIN     := bin
SANFLAGS =
endif

ALL_CFLAGS = $(WFLAGS) $(CFLAGS) $(SANFLAGS) $(CPPFLAGS_ALL)

ONNX_PROTO = /usr/include/onnx/onnx.proto
TF_PROTO   = formats/tf/graph.proto
TF_GEN_SRC = $(O)/gen/tf/graph.pb-c.c
GEN_SRC    = $(O)/gen/onnx/onnx.pb-c.c
GEN_HDR    = $(GEN_SRC:.c=.h)

LIBIR_SRC   = $(wildcard libir/*.c) $(wildcard share/npu/runtime/*.c)
FORMATS_SRC = $(wildcard formats/*/*.c)
TOOLS       = $(patsubst tools/%.c,%,$(wildcard tools/npu*.c))
UNIT_SRC    = $(wildcard tests/unit/test_*.c)

RT_SRC      = share/npu/runtime/npu_half.h share/npu/runtime/npu_math.h share/npu/runtime/npu_rt.h share/npu/runtime/npu_rt.c
RT_EMBED    = $(O)/gen/runtime_src.c
LIBIR_OBJ   = $(patsubst %.c,$(O)/%.o,$(LIBIR_SRC)) $(RT_EMBED:.c=.o)
FORMATS_OBJ = $(patsubst %.c,$(O)/%.o,$(FORMATS_SRC)) $(GEN_SRC:.c=.o) $(TF_GEN_SRC:.c=.o)
PROGS       = $(addprefix $(BIN)/,$(TOOLS))
UNIT_BINS   = $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRC))
CONFORM     = $(O)/tests/onnx_conform
# example plugins (npu-plugin(7)), one object each; built with the programs'
# sanitizer flags, as an ASan program may only load ASan objects or plain ones
PLUGINS     = $(patsubst share/npu/plugins/%.c,$(O)/plugins/%.so,$(wildcard share/npu/plugins/*.c))
# tests/plugin/probe.c as version 1, version 2 and of another ABI (t9020)
TEST_PLUGINS = $(O)/tests/plugin-v1/probe.so $(O)/tests/plugin-v2/probe.so $(O)/tests/plugin-abi/probe.so
PLUGIN_CFLAGS = $(WFLAGS) $(CFLAGS) $(SANFLAGS) -fPIC -shared -fvisibility=hidden -Ishare/npu

.PHONY: all check install deps demo clean bench check-cross cross-deps
all: $(PROGS) $(PLUGINS)

$(GEN_SRC): $(ONNX_PROTO)
	@mkdir -p $(O)/gen/onnx
	cd $(dir $(ONNX_PROTO)) && protoc-c --c_out=$(CURDIR)/$(O)/gen/onnx onnx.proto

$(GEN_SRC:.c=.o): $(GEN_SRC)
	$(CC) $(filter-out -Werror,$(ALL_CFLAGS)) -w -c -o $@ $<

# the TensorFlow GraphDef subset (formats/tf/graph.proto) is ours
$(TF_GEN_SRC): $(TF_PROTO)
	@mkdir -p $(O)/gen/tf
	cd $(dir $(TF_PROTO)) && protoc-c --c_out=$(CURDIR)/$(O)/gen/tf $(notdir $(TF_PROTO))

$(TF_GEN_SRC:.c=.o): $(TF_GEN_SRC)
	$(CC) $(filter-out -Werror,$(ALL_CFLAGS)) -w -c -o $@ $<

$(O)/%.o: %.c | $(GEN_SRC) $(TF_GEN_SRC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# the runtime sources as C strings, for npu-emit to copy into headers
$(RT_EMBED): $(RT_SRC)
	@mkdir -p $(dir $@)
	for f in $(RT_SRC); do \
	  echo "const char npu_src_$$(basename $$f | tr . _)[] ="; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $$f; echo ";"; \
	done > $@.tmp && mv $@.tmp $@

$(RT_EMBED:.c=.o): $(RT_EMBED)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/plugins/%.so: share/npu/plugins/%.c share/npu/plugin.h
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -o $@ $< -lm
$(O)/tests/plugin-v%/probe.so: tests/plugin/probe.c share/npu/plugin.h
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -DPROBE_VERSION=$* -o $@ $<
$(O)/tests/plugin-abi/probe.so: tests/plugin/probe.c share/npu/plugin.h
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -DPROBE_VERSION=9 -DPROBE_ABI=99 -o $@ $<

$(O)/libir.a: $(LIBIR_OBJ)
	rm -f $@ && ar rcs $@ $^
$(O)/libformats.a: $(FORMATS_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BIN)/%: $(O)/tools/%.o $(O)/libformats.a $(O)/libir.a
	@mkdir -p $(BIN)
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(O)/tests/%: $(O)/tests/unit/%.o $(O)/libformats.a $(O)/libir.a
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(CONFORM): $(O)/tests/conform/onnx_conform.o $(O)/libformats.a $(O)/libir.a
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# ---------------------------------------------------------------- fuzzing
# tests/fuzz/fuzz_NAME.c: one libFuzzer harness per reader (tests/fuzz/README.md).
#   make check                 replays every harness over tests/fuzz/corpus/NAME and
#                              tests/fuzz/regress/NAME through a plain main (driver.c)
#   make fuzz FUZZ_SECONDS=N   builds them with clang -fsanitize=fuzzer,address,undefined
#                              and runs each for N seconds, growing $(FUZZ_WORK)/NAME
#   make fuzz-merge            adds what $(FUZZ_WORK) found that covers more to the
#                              committed corpus (FUZZ=NAME... to choose harnesses)
FUZZ_NAMES   = $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ         ?= $(FUZZ_NAMES)
FUZZ_REPLAY  = $(FUZZ_NAMES:%=$(O)/tests/fuzz/replay_%)
FUZZ_SECONDS ?= 60
FUZZ_O       = build/fuzz
FUZZ_WORK    ?= $(FUZZ_O)/work
FUZZ_CC      ?= clang
FUZZ_SAN     = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_FLAGS   ?= -rss_limit_mb=2048 -timeout=10 -max_len=1048576
FUZZERS      = $(FUZZ:%=$(FUZZ_O)/fuzz_%)

$(FUZZ_REPLAY): $(O)/tests/fuzz/replay_%: $(O)/tests/fuzz/fuzz_%.o $(O)/tests/fuzz/driver.o $(O)/libformats.a $(O)/libir.a
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# libir and formats instrumented for coverage (a build tree of their own; clang-only
# warnings do not stop fuzzing)
$(FUZZ_O)/libs: FORCE
	$(MAKE) O=$(FUZZ_O) CC=$(FUZZ_CC) CFLAGS="-O1 -g -Wno-error" SANFLAGS="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
	  $(FUZZ_O)/libformats.a $(FUZZ_O)/libir.a
$(FUZZ_O)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_O)/libs
	$(FUZZ_CC) $(WFLAGS) -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) \
	  -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Ilibir -Iformats -I$(FUZZ_O)/gen \
	  -o $@ $< $(FUZZ_O)/libformats.a $(FUZZ_O)/libir.a $(LIBS)

fuzz: $(FUZZERS)
	@for f in $(FUZZ); do \
	  mkdir -p $(FUZZ_WORK)/$$f $(FUZZ_WORK)/crashes/$$f; \
	  dict=; [ -f tests/fuzz/dict/$$f.dict ] && dict=-dict=tests/fuzz/dict/$$f.dict; \
	  echo "fuzz_$$f: $(FUZZ_SECONDS) s"; \
	  $(FUZZ_O)/fuzz_$$f $(FUZZ_FLAGS) $$dict -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_WORK)/crashes/$$f/ $(FUZZ_WORK)/$$f tests/fuzz/corpus/$$f || exit 1; \
	done
fuzz-merge: $(FUZZERS)
	@for f in $(FUZZ); do \
	  [ -d $(FUZZ_WORK)/$$f ] || continue; \
	  $(FUZZ_O)/fuzz_$$f $(FUZZ_FLAGS) -merge=1 tests/fuzz/corpus/$$f $(FUZZ_WORK)/$$f || exit 1; \
	done
.PHONY: fuzz fuzz-merge FORCE
FORCE:
-include $(FUZZ_NAMES:%=$(O)/tests/fuzz/fuzz_%.d) $(O)/tests/fuzz/driver.d
# ---------------------------------------------------------------- end of fuzzing

# CONV_Q's int8 paths against the definition, built once per instruction
# set (tests/pipeline/t6040-simd.sh runs them, aarch64 under qemu-aarch64)
SIMD_TEST = tests/simd/test_simd.c
SIMD_BINS = $(O)/tests/test_simd $(O)/tests/test_simd_portable
ifeq ($(shell uname -m),x86_64)
SIMD_BINS += $(O)/tests/test_simd_sse41 $(O)/tests/test_simd_avx2 $(O)/tests/test_simd_vnni
# AMX-INT8 tiles (and AVX-512 VNNI), when the compiler knows them
AMX_FLAGS := $(shell $(CC) -march=sapphirerapids -E -x c /dev/null >/dev/null 2>&1 && echo -march=sapphirerapids)
SIMD_BINS += $(if $(AMX_FLAGS),$(O)/tests/test_simd_amx)
SIMD_BINS += $(O)/tests/test_simd_avx512 $(O)/tests/test_simd_fma_avx2 $(O)/tests/test_simd_fma_avx512
# AVX-512 with VNNI and VBMI, no AMX: the 3x3 depthwise on vpermb + vpdpbusd (cq_dw512)
SIMD_BINS += $(O)/tests/test_simd_avx512vnni
endif
# -DNPU_F32_FMA (fused float convolution sums): the portable C's fmaf and
# every FMA path, held to the same reference loop
SIMD_BINS += $(O)/tests/test_simd_fma_portable
A64_CC ?= aarch64-linux-gnu-gcc
SIMD_BINS += $(if $(shell command -v $(A64_CC) 2>/dev/null),$(O)/tests/test_simd_neon $(O)/tests/test_simd_neondot \
	$(O)/tests/test_simd_fma_neon)
# Cortex-M55 (Helium) under qemu-system-arm -M mps3-an547 with semihosting
# (tests/cross: startup code and linker script; newlib's librdimon), the
# cases within the board's RAM (TEST_SIMD_SCRATCH); int32_t is long there
M55_CC ?= arm-none-eabi-gcc
M55_OK := $(shell $(M55_CC) -print-file-name=rdimon.specs 2>/dev/null | grep -q / && echo y)
SIMD_BINS += $(if $(M55_OK),$(O)/tests/test_simd_m55 $(O)/tests/test_simd_m4)

$(O)/tests/test_simd: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(WFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $< -lm
$(O)/tests/test_simd_portable: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(WFLAGS) $(CFLAGS) $(SANFLAGS) -DNPU_NO_SIMD -o $@ $< -lm
$(O)/tests/test_simd_sse41: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(WFLAGS) $(CFLAGS) $(SANFLAGS) -msse4.1 -o $@ $< -lm
$(O)/tests/test_simd_avx2: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(WFLAGS) $(CFLAGS) $(SANFLAGS) -mavx2 -o $@ $< -lm
$(O)/tests/test_simd_vnni: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(WFLAGS) $(CFLAGS) $(SANFLAGS) -mavx2 -mavxvnni -o $@ $< -lm
$(O)/tests/test_simd_amx: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(WFLAGS) $(CFLAGS) $(SANFLAGS) $(AMX_FLAGS) -o $@ $< -lm
$(O)/tests/test_simd_neon: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(A64_CC) $(WFLAGS) $(CFLAGS) -o $@ $< -lm
$(O)/tests/test_simd_neondot: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(A64_CC) $(WFLAGS) $(CFLAGS) -march=armv8.2-a+dotprod -o $@ $< -lm

$(O)/tests/test_simd_m55: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h tests/cross/startup.c tests/cross/mps3-an547.ld
	@mkdir -p $(dir $@)
	$(M55_CC) $(WFLAGS) -Wno-format -O2 -mthumb -mcpu=cortex-m55 -mfloat-abi=hard -ffunction-sections -fdata-sections \
	  -DTEST_SIMD_SCRATCH=65536 tests/cross/startup.c $< -nostartfiles --specs=rdimon.specs -Ltests/cross \
	  -Ttests/cross/mps3-an547.ld -Wl,--gc-sections -o $@ -lm
# Cortex-M4F's DSP instructions (SMLAD, SXTB16) under -M mps2-an386, alike
$(O)/tests/test_simd_m4: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h tests/cross/startup.c tests/cross/mps2-an386.ld
	@mkdir -p $(dir $@)
	$(M55_CC) $(WFLAGS) -Wno-format -O2 -mthumb -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -ffunction-sections \
	  -fdata-sections -DTEST_SIMD_SCRATCH=65536 tests/cross/startup.c $< -nostartfiles --specs=rdimon.specs -Ltests/cross \
	  -Ttests/cross/mps2-an386.ld -Wl,--gc-sections -o $@ -lm
$(O)/tests/test_simd_avx512: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(WFLAGS) $(CFLAGS) $(SANFLAGS) -mavx512f -o $@ $< -lm
$(O)/tests/test_simd_avx512vnni: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(WFLAGS) $(CFLAGS) $(SANFLAGS) -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mavx512vbmi -o $@ $< -lm
$(O)/tests/test_simd_fma_portable: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(WFLAGS) $(CFLAGS) $(SANFLAGS) -DNPU_NO_SIMD -DNPU_F32_FMA -o $@ $< -lm
$(O)/tests/test_simd_fma_avx2: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(WFLAGS) $(CFLAGS) $(SANFLAGS) -mavx2 -mfma -DNPU_F32_FMA -o $@ $< -lm
$(O)/tests/test_simd_fma_avx512: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(WFLAGS) $(CFLAGS) $(SANFLAGS) -mavx512f -mfma -DNPU_F32_FMA -o $@ $< -lm
$(O)/tests/test_simd_fma_neon: $(SIMD_TEST) $(RT_SRC) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(A64_CC) $(WFLAGS) $(CFLAGS) -DNPU_F32_FMA -o $@ $< -lm

check: $(PROGS) $(PLUGINS) $(TEST_PLUGINS) $(UNIT_BINS) $(CONFORM) $(FUZZ_REPLAY) $(SIMD_BINS)
	NPU_BIN=$(CURDIR)/$(BIN) NPU_TESTS=$(CURDIR)/$(O)/tests prove -e '' $(UNIT_BINS) tests/pipeline/t*.sh tests/fuzz/replay.sh

install: $(PROGS) $(PLUGINS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man7 $(DESTDIR)$(PREFIX)/share/npu \
	  $(DESTDIR)$(PREFIX)/lib/npukit/plugins
	install -m 755 $(PROGS) $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(PLUGINS) $(DESTDIR)$(PREFIX)/lib/npukit/plugins
	install -m 644 $(wildcard man/*.1) $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 $(wildcard man/*.5) $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 644 $(wildcard man/*.7) $(DESTDIR)$(PREFIX)/share/man/man7
	cp -R share/npu/. $(DESTDIR)$(PREFIX)/share/npu/

DEB_PKGS = gcc make libc6-dev libprotobuf-c-dev protobuf-c-compiler libyaml-dev \
	libmsgpack-dev libzstd-dev libzip-dev zlib1g-dev libonnx-dev libonnx-testdata perl unzip \
	$(if $(filter x86_64,$(shell uname -m)),gcc-i686-linux-gnu libc6-dev-i386-cross) \
	gcc-aarch64-linux-gnu qemu-user
deps:
	@missing=$$(for p in $(DEB_PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	else echo "all build and test dependencies are installed"; fi

# check-cross: emitted headers built for Cortex-M4F, M7 and M55 (Debian's
# arm-none-eabi-gcc and newlib, run under qemu-system-arm with semihosting)
# and aarch64 (static, under qemu-aarch64), outputs byte for byte against
# npu-run, flash and RAM per model and core in build/cross-report.txt
# (tests/cross/check.sh). CROSS_QUICK=1: the subset CI runs.
CROSS_PKGS = gcc-arm-none-eabi libnewlib-arm-none-eabi binutils-arm-none-eabi qemu-system-arm qemu-user \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross unzip
CROSS_QUICK_ENV = CROSS_FAMILIES="kws_gru detector attention tfjs_blazeface" CROSS_TARGETS="int8 float grus"
cross-deps:
	@missing=$$(for p in $(CROSS_PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	else echo "all cross-check dependencies are installed"; fi

check-cross: $(PROGS)
	$(if $(CROSS_QUICK),$(CROSS_QUICK_ENV)) NPU_BIN=$(CURDIR)/$(BIN) CROSS_REPORT=$(CURDIR)/build/cross-report.txt \
	  prove -e '' tests/cross/check.sh

# The main job on the bundled digits CNN (share/npu/examples, made by
# tests/gen/digits.py): import, fuse, quantize to int8 on the training
# images, emit npu.h, build it with a tiny host program and compare the
# test-set accuracy of the float32 and the int8 code.
EX   = share/npu/examples
DEMO = $(O)/demo
demo: $(PROGS)
	@mkdir -p $(DEMO)
	$(BIN)/npu-import-pt $(EX)/digits.pt --input 0:1,1,8,8 | $(BIN)/npu-fuse --all -o $(DEMO)/digits.ir
	$(BIN)/npu-quant $(DEMO)/digits.ir --target int8 --calib $(EX)/digits.calib.npy -v -o $(DEMO)/digits.q.ir
	$(BIN)/npu-emit $(DEMO)/digits.ir --name fp32 -o $(DEMO)/npu_fp32.h
	$(BIN)/npu-emit $(DEMO)/digits.q.ir --name digits -v -o $(DEMO)/npu_digits.h
	$(CC) -std=c99 -O2 -Wall -Wextra -pedantic -Werror -I$(DEMO) -DNPU_HEADER='"npu_fp32.h"' \
	  -DNPU_MODEL=npu_fp32_model $(EX)/npu_host.c -o $(DEMO)/host_fp32 -lm
	$(CC) -std=c99 -O2 -Wall -Wextra -pedantic -Werror -I$(DEMO) -DNPU_HEADER='"npu_digits.h"' \
	  -DNPU_MODEL=npu_digits_model $(EX)/npu_host.c -o $(DEMO)/host_int8 -lm
	@echo
	@printf 'fp32 (emitted float32 code): '; $(DEMO)/host_fp32 eval $(EX)/digits.test.npy $(EX)/digits.labels.npy
	@printf 'int8 (emitted npu.h):        '; $(DEMO)/host_int8 eval $(EX)/digits.test.npy $(EX)/digits.labels.npy
	@sed -n 's/^#define NPU_FP32_WEIGHT_SIZE \(.*\)u/weights: fp32 \1 bytes, /p' $(DEMO)/npu_fp32.h | tr -d '\n'
	@sed -n 's/^#define NPU_DIGITS_WEIGHT_SIZE \(.*\)u/int8 \1 bytes; /p' $(DEMO)/npu_digits.h | tr -d '\n'
	@sed -n 's/^#define NPU_DIGITS_ARENA_SIZE \(.*\)u/int8 arena \1 bytes/p' $(DEMO)/npu_digits.h
	@echo "the header: $(DEMO)/npu_digits.h"

bench: $(PROGS)
	bench/interp.sh
	bench/import_pt.sh
	bench/quant.sh
	bench/emit.sh

clean:
	rm -rf build bin

-include $(CONFORM:$(O)/tests/%=$(O)/tests/conform/%.d) $(LIBIR_OBJ:.o=.d) $(FORMATS_OBJ:.o=.d) $(patsubst %,$(O)/tools/%.d,$(TOOLS)) $(UNIT_BINS:$(O)/tests/%=$(O)/tests/unit/%.d)
