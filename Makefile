# DatabaseKit and dbtool. `make demo` and `make test` install what is missing,
# build, and run; see README.md.

SWIFT ?= swift
DEMO_DIR ?= demo
BENCH_BIN = $$($(SWIFT) build -c release --package-path Benchmarks --show-bin-path)/Benchmarks
# Debian packages the build needs: the system SQLite and libarchive headers,
# and pkg-config, through which SwiftPM finds them.
APT_PACKAGES := libsqlite3-dev libarchive-dev pkg-config

.PHONY: all deps bench-deps build test test-tsan demo lint bench bench-instructions clean

# The suites that exercise threads and processes, run under ThreadSanitizer.
TSAN_SUITES := DatabaseQueueTests|DatabasePoolTests|SharedScenarioTests|DatabaseSnapshotTests|BackupTests|CheckpointTests|DatabaseMigratorTests|CrossProcessTests|ConfigurationTests

all: build

## deps: install the Debian packages that are missing (apt-get update first)
deps:
	@missing=""; \
	for package in $(APT_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	    echo "==> Installing$$missing"; \
	    sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	    $$sudo apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi

## bench-deps: what the benchmarks need besides deps (valgrind: callgrind and its client-request header)
bench-deps: deps
	@dpkg-query -W -f='$${Status}' valgrind 2>/dev/null | grep -q "install ok installed" || { \
	    sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	    $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends valgrind; }

## build: debug build of the library, dbtool and the demo
build: deps
	$(SWIFT) build

## test: every test (Swift Testing), against real SQLite files in temp directories,
## then the concurrency suites under ThreadSanitizer
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test
	$(MAKE) test-tsan

## test-tsan: the concurrency suites under ThreadSanitizer; any report fails the run
test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --build-path .build-tsan
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --sanitize=thread --build-path .build-tsan --filter '$(TSAN_SUITES)'

## demo: the library at work on ./demo/db.sqlite (run it again: it adds a round)
demo: deps
	$(SWIFT) build --product DatabaseKitDemo
	$$($(SWIFT) build --show-bin-path)/DatabaseKitDemo $(DEMO_DIR)

## bench: release build of Benchmarks/ (DatabaseKit vs raw C vs GRDB 7.10), timings then
## instruction counts, written to Benchmarks/RESULTS.md
bench: bench-deps
	$(SWIFT) build -c release --package-path Benchmarks
	$(BENCH_BIN) timings --repetitions 7 --results Benchmarks/RESULTS.md
	$(BENCH_BIN) instructions --results Benchmarks/RESULTS.md

## bench-instructions: each workload once under callgrind (timed region only), ratios in instructions
bench-instructions: bench-deps
	$(SWIFT) build -c release --package-path Benchmarks
	$(BENCH_BIN) instructions

## lint: the toolchain's swift-format, with the checked-in .swift-format
lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

## clean: remove build products and the demo database
clean:
	rm -rf .build .build-tsan Benchmarks/.build $(DEMO_DIR)
