# The two set-up commands (README): `make demo` and `make test`.
# Both install missing Debian packages (as root), configure, build, and are
# fast when nothing changed.

BUILD  ?= build
LLVM   ?= /usr/lib/llvm-22
CC     := clang-22
CXX    := clang++-22
PKGS   := libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 \
          cmake ninja-build libgtest-dev libbenchmark-dev python3 zlib1g-dev \
          libeigen3-dev

.PHONY: all deps configure build demo test bench docs clean

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

# The main job on the bundled default example: Perseus's measured Bloom/A40
# stage profile (8 stages, every SM clock) as a 1F1B pipeline with 12
# microbatches, expanded, lowered to the energy calculus and evaluated.
DEMO_PROFILE := examples/data/stage_profile_bloom+a40_bf16.csv
demo: build
	@echo "== import $(DEMO_PROFILE) (Perseus, Bloom on A40, 8 stages)"
	$(BUILD)/bin/energy-translate --import-stage-profile $(DEMO_PROFILE) \
	  --schedule 1f1b --microbatches 12 --device A40 -o $(BUILD)/demo-schedule.mlir
	@echo "== expand 1F1B, lower to energy, evaluate (every task at its maximum clock)"
	$(BUILD)/bin/energy-opt $(BUILD)/demo-schedule.mlir --sched-expand --sched-to-energy \
	  --energy-evaluate="summary=true report=$(BUILD)/demo-report.json" -o $(BUILD)/demo.mlir
	@echo "== plan: the frontier's least-energy point within 1% of the fastest iteration"
	$(BUILD)/bin/energy-opt $(BUILD)/demo-schedule.mlir --sched-expand \
	  --energy-plan="max-slowdown=1 summary=true" --energy-emit-dvfs \
	  -o $(BUILD)/demo-planned.mlir
	$(BUILD)/bin/energy-translate --export-plan $(BUILD)/demo-planned.mlir \
	  -o $(BUILD)/demo-plan.json
	@echo "== the planned iteration, lowered and evaluated"
	$(BUILD)/bin/energy-opt $(BUILD)/demo-planned.mlir --sched-to-energy \
	  --energy-evaluate="summary=true" -o /dev/null
	@echo "== the paper's section 2.4 attention layer"
	$(BUILD)/bin/energy-opt examples/attention-tp2.mlir --energy-evaluate="summary=true" -o /dev/null
	@echo "annotated IR: $(BUILD)/demo.mlir   report: $(BUILD)/demo-report.json   plan: $(BUILD)/demo-plan.json"

# Every suite: lit + FileCheck and GoogleTest, in one lit run.
test: build
	ninja -C $(BUILD) check-energy

bench: build
	bench/run.sh $(BUILD)

docs: configure
	ninja -C $(BUILD) energy-docs

clean:
	rm -rf $(BUILD)
