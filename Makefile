# SyncTable — the commands a user and CI run.
SWIFT ?= swift
PREFIX ?= /usr/local
FUZZ_SECONDS ?= 300

.PHONY: all build test demo bench install fuzz deps clean

all: build

# Release builds link the Swift runtime and Foundation into the binary: a command starts in
# half the time (12 ms against 23 for `--version`: no dynamic loading of a dozen libraries),
# and an installed `synctable` runs without the toolchain's libraries.
RELEASE = $(SWIFT) build -c release --static-swift-stdlib

deps:
	@scripts/ensure-deps.sh

build: deps
	$(SWIFT) build

# Build everything (with tests), then run every test. The build is the release configuration,
# in a scratch path of its own, .build/tests, so that it and the static release builds below do
# not rebuild over each other: the dependencies run as they ship, without their debug-only checks
# (swift-argument-parser's debug build checks every command's definition at each parse: 40 % of
# the tests' CPU time; CommandDefinitionTests makes those checks once), and our own modules keep
# their assertions, debug checks and testability (SYNCTABLE_OPTIMIZED, in Package.swift).
# The terminal tests use the `synctable` and
# `tabledemo` binaries built here; the serve tests, the Firebase Admin SDK for Python in
# .build/firebase-venv; then the Firebase JS SDK's own suites run against `synctable serve`
# (when ../shared/firebase-js-sdk is beside the clone).
TEST_BUILD = --configuration release --scratch-path .build/tests

test:
	@scripts/ensure-deps.sh test
	@scripts/ensure-firebase-admin.sh
	SYNCTABLE_OPTIMIZED=1 $(SWIFT) build $(TEST_BUILD) --build-tests
	SYNCTABLE_OPTIMIZED=1 $(SWIFT) test $(TEST_BUILD) --skip-build
	@scripts/run-sdk-suites.sh

# The viewer on a live, changing example.
demo: deps
	$(RELEASE) --product synctable
	.build/release/synctable demo

bench:
	@scripts/ensure-deps.sh bench
	$(RELEASE) --product synctable
	$(RELEASE) --product synctable-bench
	$(RELEASE) --product tabledemo
	@mkdir -p .build/bench
	@if [ -e /usr/include/simdjson.h ]; then \
	  c++ -O3 -std=c++17 -o .build/bench/simdjson-parse scripts/bench/simdjson-parse.cpp -lsimdjson; \
	else rm -f .build/bench/simdjson-parse; fi
	.build/release/synctable-bench --root "$(CURDIR)"

# A stripped binary: the symbols are half of the release build's size.
install: deps
	$(RELEASE) --product synctable
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 755 -s .build/release/synctable "$(DESTDIR)$(PREFIX)/bin/synctable"
	install -d "$(DESTDIR)$(PREFIX)/share/man/man1"
	install -m 644 docs/synctable.1 "$(DESTDIR)$(PREFIX)/share/man/man1/synctable.1"

# libFuzzer over the parser and validate's error path, seeded with JSONTestSuite.
fuzz:
	scripts/fuzz.sh $(FUZZ_SECONDS)

clean:
	rm -rf .build .build-fuzz
