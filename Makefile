# Thin wrapper over CMake. `make demo` and `make test` install missing dependencies first.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

FUZZ_SECONDS ?= 600

.PHONY: all build deps test test-sanitizers fuzz-smoke demo bench fuzz clean

all: build

deps:
	@scripts/install-deps

$(BUILD)/CMakeCache.txt:
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

build: $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS)

# The whole suite twice: the normal build (RSS bounds are asserted there), then ASan+UBSan.
test: deps
	@$(MAKE) --no-print-directory build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory test-sanitizers
	@$(MAKE) --no-print-directory fuzz-smoke

test-sanitizers:
	@cmake -S . -B $(BUILD)-san -DTOOLHOST_ASAN=ON -DTOOLHOST_UBSAN=ON >/dev/null
	@cmake --build $(BUILD)-san -j $(JOBS)
	@cd $(BUILD)-san && ctest --output-on-failure -j $(JOBS)

demo: deps
	@$(MAKE) --no-print-directory build
	@scripts/demo

bench: deps
	@cmake -S . -B $(BUILD)-bench -DCMAKE_BUILD_TYPE=Release -DTOOLHOST_TESTS=OFF -DTOOLHOST_BENCH=ON >/dev/null
	@cmake --build $(BUILD)-bench -j $(JOBS)
	@scripts/bench $(BUILD)-bench

# The parser fuzzer briefly (part of `make test`), and for FUZZ_SECONDS (`make fuzz`).
fuzz-smoke:
	@out=$$(scripts/fuzz 20 $(BUILD)-fuzz 2>&1) || { echo "$$out" | tail -40; exit 1; }; \
	  echo "$$out" | grep -aE '^(stat::number_of_executed_units|Done)' || true

fuzz: deps
	@scripts/fuzz $(FUZZ_SECONDS) $(BUILD)-fuzz

clean:
	rm -rf $(BUILD) $(BUILD)-san $(BUILD)-bench $(BUILD)-fuzz
