# Thin wrapper over CMake.
# `make` builds the plugin's binary, build/toolhost (Release, no tests), with the build
# dependencies alone; it checks them first and never installs anything. `make demo`, `make test`,
# `make bench` and `make fuzz` install what is missing first (as root or with sudo) and build in
# their own directories (build-test, build-san, build-bench, build-fuzz).
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 5
# cmake --build runs make below this one: no "Entering directory" lines.
MAKEFLAGS += --no-print-directory

# The plugin build: -O2 compiles main.cc in a quarter less time than Release's -O3 (the host
# waits on I/O, not on code), a precompiled header saves another quarter, and warnings stay
# warnings: a newer compiler must not fail the install.
PLUGIN_FLAGS = -DCMAKE_BUILD_TYPE=Release '-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG' \
  -DTOOLHOST_PCH=ON -DTOOLHOST_UNITY=ON -DTOOLHOST_STATIC=ON -DTOOLHOST_TESTS=OFF -DTOOLHOST_WERROR=OFF \
  $(CMAKE_FLAGS)
# The test builds keep line tables only (-g1): backtraces and sanitizer reports still name file
# and line, and compiling and linking ~170 test files takes far less than with full -g. Both
# use the precompiled header (the MCP layers and their tests took the suite past CI's 25 minutes
# on 2 cores without it in the normal build). A missing #include fails in the development build
# (scripts/configure without TOOLHOST_UNITY compiles every source on its own).
# The sanitizer build compiles its instrumented layers at -Og: 35-45% less CPU than at -O1
# (what ASan's documentation suggests; 42 s against 28 for a unity file of the MCP layer).
TEST_FLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo '-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG' \
  -DTOOLHOST_TESTS=ON -DTOOLHOST_PCH=ON -DTOOLHOST_UNITY=ON $(CMAKE_FLAGS)
# It uses the normal test build's compiled tests (tests/CMakeLists.txt, TOOLHOST_TEST_CODE_FROM):
# the unit tests' objects linked with its instrumented layers, the end-to-end tests run against
# its instrumented host.
SAN_FLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo '-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-Og -g1 -DNDEBUG' \
  -DTOOLHOST_TESTS=ON -DTOOLHOST_PCH=ON -DTOOLHOST_UNITY=ON -DTOOLHOST_ASAN=ON -DTOOLHOST_UBSAN=ON \
  -DTOOLHOST_TEST_CODE_FROM=$(abspath $(BUILD)-test) $(CMAKE_FLAGS)

.PHONY: all build deps test test-build sanitizer-build test-sanitizers fuzz-smoke demo bench bench-smoke fuzz clean

all: build

build:
	@scripts/check-build-deps
	@scripts/configure $(BUILD) $(PLUGIN_FLAGS)
	@cmake --build $(BUILD) --target toolhost -j $(JOBS)

deps:
	@scripts/install-deps

# The MCP tests drive toolhost with real MCP peers from npm (tests/mcp/package-lock.json).
# The end-to-end tests run on the system's Neovim and on each of these suites' (scripts/fetch-nvim
# brings them into .cache/nvim; one that cannot be fetched makes its tests skip with the reason).
# What was fetched is part of the configure arguments, so that a later fetch configures again.
TEST_NVIM_SUITES ?= trixie sid
test-build: deps
	@scripts/install-test-node-deps
	@fetched=$$(scripts/fetch-nvim $(TEST_NVIM_SUITES) | tr '\n' ' '); \
	  scripts/configure $(BUILD)-test $(TEST_FLAGS) \
	    "-DTOOLHOST_TEST_NVIM_SUITES=$$(echo $(TEST_NVIM_SUITES) | tr ' ' ';')" \
	    "-DTOOLHOST_TEST_NVIMS_FETCHED=$$fetched"
	@cmake --build $(BUILD)-test -j $(JOBS)

# The whole suite twice: the normal build (RSS bounds are asserted there), then ASan+UBSan,
# with each fuzz target's seeds and inputs mutated from them; the benchmarks once with tiny
# sizes (`make bench` unchanged but for the sizes; no figure is checked), so that they cannot
# rot. scripts/test-all runs them in that order, compiling the sanitizer build in the background
# at the lowest priority meanwhile (the tests leave a third of the two cores idle).
test: test-build
	@scripts/test-all $(BUILD) $(JOBS)

sanitizer-build:
	@scripts/install-test-node-deps
	@scripts/configure $(BUILD)-san $(SAN_FLAGS)
	@cmake --build $(BUILD)-san -j $(JOBS)

test-sanitizers: test-build sanitizer-build
	@cd $(BUILD)-san && ctest --output-on-failure -j $(JOBS)

demo: deps
	@$(MAKE) --no-print-directory build
	@scripts/demo

# Every benchmark in a Release build: one table, bench/results/latest.md and latest.json.
# Unity files and the precompiled header, as the plugin build: the same code in a third of the
# compile time.
bench: deps
	@scripts/configure $(BUILD)-bench -DCMAKE_BUILD_TYPE=Release -DTOOLHOST_STATIC=ON -DTOOLHOST_TESTS=OFF -DTOOLHOST_BENCH=ON \
	  -DTOOLHOST_UNITY=ON -DTOOLHOST_PCH=ON
	@cmake --build $(BUILD)-bench -j $(JOBS)
	@scripts/bench $(BUILD)-bench

# The same benchmarks, tiny, against the test build (no Release build of its own).
bench-smoke:
	@out=$$(BENCH_SMOKE=1 scripts/bench $(BUILD)-test 2>&1) || { echo "$$out" | tail -40; exit 1; }; \
	  echo "bench smoke: ok (its report: $(BUILD)-test/bench-smoke/latest.md)"

# Every libFuzzer target (scripts/fuzz has the list) for FUZZ_SMOKE_SECONDS each, failing when
# one crashes; `make fuzz` runs each for FUZZ_SECONDS. (`make test` replays their seeds in the
# sanitizer build instead: the clang build took a quarter of its compiling.)
fuzz-smoke:
	@scripts/fuzz $(FUZZ_SMOKE_SECONDS) $(BUILD)-fuzz

fuzz: deps
	@scripts/fuzz $(FUZZ_SECONDS) $(BUILD)-fuzz

clean:
	rm -rf $(BUILD) $(BUILD)-test $(BUILD)-san $(BUILD)-bench $(BUILD)-fuzz .cache/nvim
