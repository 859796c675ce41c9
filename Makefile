# Thin wrapper over CMake. `make demo` and `make test` install missing dependencies first.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build deps test test-sanitizers demo bench fuzz clean

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

fuzz:
	@TOOLHOST_FUZZ=1 scripts/install-deps
	@CXX=clang++-14 cmake -S . -B $(BUILD)-fuzz -DTOOLHOST_FUZZ=ON -DTOOLHOST_TESTS=OFF >/dev/null
	@cmake --build $(BUILD)-fuzz -j $(JOBS)
	@scripts/fuzz $(BUILD)-fuzz

clean:
	rm -rf $(BUILD) $(BUILD)-san $(BUILD)-bench $(BUILD)-fuzz
