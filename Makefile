# The two set-up commands (README): `make demo` and `make test`.
# Both install missing Debian packages (as root), configure, build, and are
# fast when nothing changed.

BUILD  ?= build
LLVM   ?= /usr/lib/llvm-22
CC     := clang-22
CXX    := clang++-22
PKGS   := libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 \
          cmake ninja-build libgtest-dev libbenchmark-dev python3 zlib1g-dev \
          libeigen3-dev chromium python3-torch glpk-utils pkgconf

.PHONY: all deps configure build demo demo-perseus test fuzz sanitize sanitize-suite install bench docs clean

all: build

deps:
	@missing=$$(for p in $(PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "== installing:" $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

$(BUILD)/build.ninja: | deps
	cmake -G Ninja -S . -B $(BUILD) \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=$(CC) -DCMAKE_CXX_COMPILER=$(CXX) \
	  -DMLIR_DIR=$(LLVM)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM)/bin/lit

configure: deps $(BUILD)/build.ninja

build: configure
	ninja -C $(BUILD)

# The main job, self-contained (no data from outside the repository): the
# project's own loop on the simulated A100 for a GPT-style 1.3 B decoder on
# 4 pipeline stages (examples/gpt-1.3b/README.md): characterize its kernels
# at every SM clock into a signature DB, fill a 1F1B schedule from it,
# evaluate, plan within 1% of the fastest iteration, export the plan,
# re-lower and re-evaluate the planned iteration; then the paper's section
# 2.4 attention layer.
DEMO := examples/gpt-1.3b
B    := $(BUILD)/bin
demo: build
	@echo "== 1. characterize: the kernels of $(DEMO)/kernels.json on sim:a100 at every SM clock"
	@$(B)/energy-prof characterize --device sim:a100 --kernels $(DEMO)/kernels.json \
	  --all-clocks --allow-clock-changes -o $(BUILD)/demo-db.json
	@echo "   $$(grep -c '"key"' $(BUILD)/demo-db.json) entries ($$(grep -c '"composed"' $(BUILD)/demo-db.json) stage passes composed with seq) in $(BUILD)/demo-db.json"
	@echo "== 2. fill the 1F1B schedule ($(DEMO)/pipeline.mlir) from the DB, expand, lower, evaluate (every stage at its highest clock)"
	@$(B)/energy-opt $(DEMO)/pipeline.mlir --energy-fill-signatures=db=$(BUILD)/demo-db.json \
	  -o $(BUILD)/demo-schedule.mlir
	@$(B)/energy-opt $(BUILD)/demo-schedule.mlir --sched-expand --sched-to-energy \
	  --energy-evaluate="summary=true report=$(BUILD)/demo-report.json" -o $(BUILD)/demo.mlir
	@echo "== 3. plan: the frontier's least-energy point within 1% of the fastest iteration"
	@$(B)/energy-opt $(BUILD)/demo-schedule.mlir --sched-expand --energy-frontier \
	  --energy-plan="max-slowdown=1 summary=true" --energy-emit-dvfs \
	  -o $(BUILD)/demo-planned.mlir
	@$(B)/energy-translate --export-plan $(BUILD)/demo-planned.mlir -o $(BUILD)/demo-plan.json
	@$(B)/energy-translate --export-perfetto $(BUILD)/demo-planned.mlir -o $(BUILD)/demo-trace.json
	@$(B)/energy-translate --export-report $(BUILD)/demo-planned.mlir -o $(BUILD)/demo-report.html
	@echo "== 4. the planned iteration, re-lowered and re-evaluated"
	@$(B)/energy-opt $(BUILD)/demo-planned.mlir --sched-to-energy \
	  --energy-evaluate="summary=true" -o /dev/null
	@echo "== 5. the paper's section 2.4 attention layer"
	@$(B)/energy-opt examples/attention-tp2.mlir --energy-evaluate="summary=true" -o /dev/null
	@echo "DB: $(BUILD)/demo-db.json  annotated IR: $(BUILD)/demo.mlir  report: $(BUILD)/demo-report.json  plan: $(BUILD)/demo-plan.json"
	@echo "timeline (open in https://ui.perfetto.dev or chrome://tracing): $(BUILD)/demo-trace.json"
	@echo "the picture (open in a browser; docs/report-demo.png): $(BUILD)/demo-report.html"

# Perseus's measured Bloom/A40 stage profile (8 stages, every SM clock), read
# in place from ../shared/data (never copied into the repository) as a 1F1B
# pipeline of 12 microbatches: imported, expanded, lowered, evaluated and
# planned.
SHARED_DATA ?= $(abspath $(CURDIR)/../shared/data)
PERSEUS_PROFILE := $(SHARED_DATA)/perseus/stage_profile_bloom+a40_bf16.csv
demo-perseus: build
	@test -f "$(PERSEUS_PROFILE)" || { echo "demo-perseus needs Perseus's profile at $(PERSEUS_PROFILE): put the shared data folder beside the checkout or set SHARED_DATA=/path/to/shared/data" >&2; exit 1; }
	@echo "== import $(PERSEUS_PROFILE) (Perseus, Bloom on A40, 8 stages)"
	$(B)/energy-translate --import-stage-profile $(PERSEUS_PROFILE) \
	  --schedule 1f1b --microbatches 12 --device A40 -o $(BUILD)/perseus-schedule.mlir
	@echo "== expand 1F1B, lower to energy, evaluate (every task at its maximum clock)"
	$(B)/energy-opt $(BUILD)/perseus-schedule.mlir --sched-expand --sched-to-energy \
	  --energy-evaluate="summary=true" -o /dev/null
	@echo "== plan: the frontier's least-energy point within 1% of the fastest iteration"
	$(B)/energy-opt $(BUILD)/perseus-schedule.mlir --sched-expand \
	  --energy-plan="max-slowdown=1 summary=true" --energy-emit-dvfs \
	  -o $(BUILD)/perseus-planned.mlir
	$(B)/energy-translate --export-plan $(BUILD)/perseus-planned.mlir \
	  -o $(BUILD)/perseus-plan.json
	@echo "plan: $(BUILD)/perseus-plan.json"

# Every suite: lit + FileCheck and GoogleTest, in one lit run.
test: build
	ninja -C $(BUILD) check-energy

# Coverage-guided fuzzing of the runtime's file readers (libFuzzer, ASan,
# UBSan), FUZZ_SECONDS per target; CI runs it after the tests.
FUZZ_SECONDS ?= 30
fuzz: build
	test/Fuzz/libfuzzer.sh $(BUILD) $(FUZZ_SECONDS)

# The runtime's GoogleTest suites (C API, simulated device, sampler, NVML
# path on its test double, signature DB) under ASan + UBSan and TSan; CI
# runs it after the fuzzers.
sanitize: build
	test/Runtime/sanitize.sh $(BUILD)

# The whole suite (lit, FileCheck, GoogleTest, Python, the browser) with
# every target of ours under ASan + UBSan (no recovery, leak detection on),
# in its own build directory: CMake's ENERGY_SANITIZE, test/lit.cfg.py.
ASAN_BUILD ?= build-asan
sanitize-suite: deps
	@test -f $(ASAN_BUILD)/build.ninja || cmake -G Ninja -S . -B $(ASAN_BUILD) \
	  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
	  -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DENERGY_SANITIZE=ON \
	  -DCMAKE_C_COMPILER=$(CC) -DCMAKE_CXX_COMPILER=$(CXX) \
	  -DMLIR_DIR=$(LLVM)/lib/cmake/mlir -DLLVM_EXTERNAL_LIT=$(LLVM)/bin/lit
	ninja -C $(ASAN_BUILD) check-energy-suites

# The tools, libenergy_rt.so, its header and the Python package under PREFIX
# (in PREFIX/lib/python3.X/dist-packages: on python3's path for /usr/local).
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

bench: build
	bench/run.sh $(BUILD)

docs: configure
	ninja -C $(BUILD) energy-docs

clean:
	rm -rf $(BUILD)
