# SPDX-License-Identifier: MIT
# Conventional entry points over SwiftPM.

PREFIX ?= /usr/local
SWIFT ?= swift
CONFIG ?= release
# The installed daemon carries the Swift runtime and Foundation inside it: it runs where no
# Swift is installed, starts faster and stays smaller (24.6 MB resident, 30 MB dynamic).
STATIC ?= --static-swift-stdlib

.PHONY: all build test lint format benchmark benchmark-baseline benchmark-check clean run install docs

all: build

build:
	$(SWIFT) build -c $(CONFIG) $(STATIC)

# The whole test suite; each test starts its own private dbus-daemon.
test:
	$(SWIFT) test

lint:
	$(SWIFT) format lint --strict -r Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks Fuzz/Package.swift Fuzz/Sources

format:
	$(SWIFT) format format -i -r Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks Fuzz/Package.swift Fuzz/Sources

benchmark:
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark

# Before a change: record where the store and crypto benchmarks stand. After it: compare, and
# fail on a regression beyond the benchmarks' thresholds.
benchmark-baseline:
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark \
	  --target StoreBenchmarks --target CryptoBenchmarks baseline update before

benchmark-check:
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark \
	  --target StoreBenchmarks --target CryptoBenchmarks baseline check before

clean:
	rm -rf .build Benchmarks/.build

# The daemon in the foreground; give the keyring password on stdin with --unlock.
run:
	$(SWIFT) run -c $(CONFIG) keychaind $(ARGS)

# The binary, the D-Bus activation file and the systemd user unit with paths filled in, the man
# page, and the example configuration (copy it to ~/.config/keychaind/ to use it).
install: build
	install -Dm755 "$$($(SWIFT) build -c $(CONFIG) $(STATIC) --show-bin-path)/keychaind" "$(DESTDIR)$(PREFIX)/bin/keychaind"
	mkdir -p "$(DESTDIR)$(PREFIX)/share/dbus-1/services" "$(DESTDIR)$(PREFIX)/lib/systemd/user"
	sed 's|@BINDIR@|$(PREFIX)/bin|' dbus/org.freedesktop.secrets.service.in \
	  > "$(DESTDIR)$(PREFIX)/share/dbus-1/services/org.freedesktop.secrets.service"
	sed 's|@BINDIR@|$(PREFIX)/bin|' data/keychaind.service.in \
	  > "$(DESTDIR)$(PREFIX)/lib/systemd/user/keychaind.service"
	install -Dm644 data/keychaind.1 "$(DESTDIR)$(PREFIX)/share/man/man1/keychaind.1"
	install -Dm644 data/keychaind.conf "$(DESTDIR)$(PREFIX)/share/doc/keychaind/keychaind.conf.example"
	install -Dm755 "$$($(SWIFT) build -c $(CONFIG) $(STATIC) --show-bin-path)/keychainctl" "$(DESTDIR)$(PREFIX)/bin/keychainctl"
	install -Dm644 data/keychainctl.1 "$(DESTDIR)$(PREFIX)/share/man/man1/keychainctl.1"
	install -Dm644 data/completions/keychainctl.bash "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/keychainctl"
	install -Dm644 data/completions/_keychainctl "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_keychainctl"
	install -Dm644 data/completions/keychainctl.fish "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/keychainctl.fish"

# keychainctl's man page and shell completions, generated from its command definitions.
docs:
	$(SWIFT) package plugin --allow-writing-to-package-directory generate-manual --configuration debug --section 1
	cp .build/plugins/GenerateManual/outputs/keychainctl/keychainctl.1 data/keychainctl.1
	$(SWIFT) build --product keychainctl
	for shell in bash zsh fish; do \
	  "$$($(SWIFT) build --show-bin-path)/keychainctl" --generate-completion-script $$shell > data/completions/keychainctl.$$shell; \
	done
	mv data/completions/keychainctl.zsh data/completions/_keychainctl
