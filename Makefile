# SPDX-License-Identifier: MIT
# Conventional entry points over SwiftPM.

PREFIX ?= /usr/local
SWIFT ?= swift
CONFIG ?= release
# The installed daemon carries the Swift runtime and Foundation inside it: it runs where no
# Swift is installed, starts faster and stays smaller (24.6 MB resident, 30 MB dynamic).
# keychainctl is the same program (a link to keychaind): one copy of them on disk.
STATIC ?= --static-swift-stdlib

.PHONY: all build test test-debug lint format benchmark benchmark-baseline benchmark-check clean run \
  install uninstall deb sanitize fuzz docs bench-compare cost-check

all: build

# First the English-only ICU data the program links instead of the toolchain's 34 MB
# (Sources/CKeychainICUData/subset.py).
build:
	python3 Sources/CKeychainICUData/subset.py
	$(SWIFT) build -c $(CONFIG) $(STATIC)
	ln -sf keychaind "$(BIN)/keychainctl"

# The whole test suite, against what ships: the tests that start keychaind and keychainctl start
# the release binaries `make build` made; the rest runs in process on the debug build. Each test
# starts its own private dbus-daemon. TESTFLAGS go to `swift test` (--filter NAME, say).
test: build
	KEYCHAIND_BINARY="$(BIN)/keychaind" KEYCHAINCTL_BINARY="$(BIN)/keychainctl" \
	  $(SWIFT) test $(TESTFLAGS)

# The same tests with the debug binaries: quicker while working, but not what users run.
test-debug:
	$(SWIFT) build
	ln -sf keychaind "$$($(SWIFT) build --show-bin-path)/keychainctl"
	$(SWIFT) test $(TESTFLAGS)

lint:
	$(SWIFT) format lint --strict -r Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks Fuzz/Package.swift Fuzz/Sources
	.ci/check-c-imports
	.ci/check-system-calls

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

# This tree against REF (the last release) in one run: instructions per call and per cold start
# (callgrind), wall time and CPU (keychain-load), and what make install installs. After make build.
REF ?= ab36ffa
bench-compare:
	Benchmarks/scripts/bench-compare.sh $(REF) $(ITEMS) $(SAMPLES)

# Fails when a call or a cold start takes more than 5 % more instructions than the baseline
# committed with the release (Benchmarks/instructions.json). A change that must cost more says
# so in its commit and moves the baseline on purpose: `make cost-check WRITE=1`.
cost-check:
	Benchmarks/scripts/instructions.py $(if $(WRITE),--write,--check) Benchmarks/instructions.json \
	  "now=$(BIN)/keychaind"

clean:
	rm -rf .build .build-sanitize Benchmarks/.build Fuzz/.build Sources/CKeychainICUData/generated/icu_data.*

# The daemon in the foreground; give the keyring password on stdin with --unlock.
run:
	$(SWIFT) run -c $(CONFIG) keychaind $(ARGS)

# What `make build` made, installed: the binaries, the D-Bus activation files (the Secret
# Service's, and KWallet's two names) and the systemd user unit with paths filled in, the man
# pages, completions, the example configuration and the Flatpak secret portal's backend file.
# It builds nothing, so that `sudo make install` does not run the compiler as root.
BIN = $(shell $(SWIFT) build -c $(CONFIG) $(STATIC) --show-bin-path 2>/dev/null)
INSTALLED = \
  $(PREFIX)/bin/keychaind \
  $(PREFIX)/bin/keychainctl \
  $(PREFIX)/share/dbus-1/services/org.freedesktop.secrets.service \
  $(PREFIX)/share/dbus-1/services/org.kde.kwalletd5.service \
  $(PREFIX)/share/dbus-1/services/org.kde.kwalletd6.service \
  $(PREFIX)/lib/systemd/user/keychaind.service \
  $(PREFIX)/lib/systemd/user/keychaind-control.socket \
  $(PREFIX)/lib/systemd/user/keychaind-credentials.socket \
  $(PREFIX)/share/man/man1/keychaind.1 \
  $(PREFIX)/share/man/man1/keychainctl.1 \
  $(PREFIX)/share/doc/keychaind/keychaind.conf.example \
  $(PREFIX)/share/xdg-desktop-portal/portals/keychaind.portal \
  $(PREFIX)/share/bash-completion/completions/keychaind \
  $(PREFIX)/share/bash-completion/completions/keychainctl \
  $(PREFIX)/share/zsh/site-functions/_keychaind \
  $(PREFIX)/share/zsh/site-functions/_keychainctl \
  $(PREFIX)/share/fish/vendor_completions.d/keychaind.fish \
  $(PREFIX)/share/fish/vendor_completions.d/keychainctl.fish

install:
	@test -x "$(BIN)/keychaind" -a -L "$(BIN)/keychainctl" || \
	  { echo "nothing built in $(BIN): run 'make build' first (as yourself, not root)"; exit 1; }
	# Stripped: the debug information is two thirds of the file, and stays in $(BIN) (make deb
	# puts it in keychaind-dbgsym, where gdb and systemd-coredump find it by the build ID).
	install -Dm755 -s "$(BIN)/keychaind" "$(DESTDIR)$(PREFIX)/bin/keychaind"
	ln -sf keychaind "$(DESTDIR)$(PREFIX)/bin/keychainctl"
	mkdir -p "$(DESTDIR)$(PREFIX)/share/dbus-1/services" "$(DESTDIR)$(PREFIX)/lib/systemd/user"
	for name in org.freedesktop.secrets org.kde.kwalletd5 org.kde.kwalletd6; do \
	  sed 's|@BINDIR@|$(PREFIX)/bin|' dbus/$$name.service.in \
	    > "$(DESTDIR)$(PREFIX)/share/dbus-1/services/$$name.service"; \
	done
	sed 's|@BINDIR@|$(PREFIX)/bin|' data/keychaind.service.in \
	  > "$(DESTDIR)$(PREFIX)/lib/systemd/user/keychaind.service"
	install -Dm644 data/keychaind-control.socket "$(DESTDIR)$(PREFIX)/lib/systemd/user/keychaind-control.socket"
	install -Dm644 data/keychaind-credentials.socket "$(DESTDIR)$(PREFIX)/lib/systemd/user/keychaind-credentials.socket"
	install -Dm644 data/keychaind.1 "$(DESTDIR)$(PREFIX)/share/man/man1/keychaind.1"
	install -Dm644 data/keychainctl.1 "$(DESTDIR)$(PREFIX)/share/man/man1/keychainctl.1"
	install -Dm644 data/keychaind.conf "$(DESTDIR)$(PREFIX)/share/doc/keychaind/keychaind.conf.example"
	install -Dm644 data/keychaind.portal "$(DESTDIR)$(PREFIX)/share/xdg-desktop-portal/portals/keychaind.portal"
	for tool in keychaind keychainctl; do \
	  install -Dm644 data/completions/$$tool.bash "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$tool"; \
	  install -Dm644 data/completions/_$$tool "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_$$tool"; \
	  install -Dm644 data/completions/$$tool.fish "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/$$tool.fish"; \
	done

# Removes what `make install` installed (with the same PREFIX). The keyring itself, in
# ~/.local/share/keychaind, is the user's and stays.
uninstall:
	rm -f $(addprefix "$(DESTDIR),$(addsuffix ",$(INSTALLED)))
	-rmdir "$(DESTDIR)$(PREFIX)/share/doc/keychaind" 2>/dev/null

# A Debian package of exactly what `make install` installs (PREFIX=/usr), built from what
# `make build` made: .build/keychaind_VERSION_ARCH.deb. It diverts gnome-keyring's D-Bus
# activation file while installed (data/deb/preinst), so the bus starts keychaind.
DEB_ROOT = .build/deb/debian/keychaind
DEB_VERSION = $(shell "$(BIN)/keychaind" --version 2>/dev/null)
DEB_ARCH = $(shell dpkg --print-architecture)
deb: BUILD_ID = $(shell readelf -n "$(BIN)/keychaind" | sed -n 's/.*Build ID: //p')
deb: DBGSYM_ROOT = .build/deb/debian/keychaind-dbgsym
deb:
	@test -x "$(BIN)/keychaind" || { echo "nothing built in $(BIN): run 'make build' first"; exit 1; }
	rm -rf .build/deb
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR="$(CURDIR)/$(DEB_ROOT)"
	mkdir -p "$(DEB_ROOT)/DEBIAN" .build/deb/debian
	install -m755 data/deb/preinst data/deb/prerm data/deb/postrm "$(DEB_ROOT)/DEBIAN/"
	# dpkg-shlibdeps names the libraries' packages; it wants a debian/control to stand in.
	printf 'Source: keychaind\n\nPackage: keychaind\nArchitecture: any\n' > .build/deb/debian/control
	# It misses the C library's version of packed relocations (no symbol names it), which came
	# with glibc 2.36: the floor is raised by hand when the program carries them.
	cd .build/deb && dpkg-shlibdeps -O -e debian/keychaind/usr/bin/keychaind \
	  | sed 's/^shlibs:Depends=//' > depends
	if readelf -V "$(DEB_ROOT)/usr/bin/keychaind" | grep -q GLIBC_ABI_DT_RELR; then \
	  sed -i 's/libc6 (>= [0-9.]*)/libc6 (>= 2.36)/' .build/deb/depends; fi
	sed -e 's|@VERSION@|$(DEB_VERSION)|' -e 's|@ARCH@|$(DEB_ARCH)|' \
	  -e "s|@SIZE@|$$(du -sk "$(DEB_ROOT)/usr" | cut -f1)|" \
	  -e "s|@DEPENDS@|$$(cat .build/deb/depends)|" data/deb/control.in > "$(DEB_ROOT)/DEBIAN/control"
	dpkg-deb --root-owner-group --build "$(DEB_ROOT)" .build/keychaind_$(DEB_VERSION)_$(DEB_ARCH).deb
	# The debug information, as Debian's -dbgsym packages carry it: by build ID.
	mkdir -p "$(DBGSYM_ROOT)/DEBIAN" "$(DBGSYM_ROOT)/usr/lib/debug/.build-id/$(shell echo $(BUILD_ID) | cut -c1-2)"
	objcopy --only-keep-debug --compress-debug-sections "$(BIN)/keychaind" \
	  "$(DBGSYM_ROOT)/usr/lib/debug/.build-id/$(shell echo $(BUILD_ID) | cut -c1-2)/$(shell echo $(BUILD_ID) | cut -c3-).debug"
	sed -e 's|@VERSION@|$(DEB_VERSION)|' -e 's|@ARCH@|$(DEB_ARCH)|' -e 's|@BUILD_ID@|$(BUILD_ID)|' \
	  -e "s|@SIZE@|$$(du -sk "$(DBGSYM_ROOT)/usr" | cut -f1)|" \
	  data/deb/dbgsym-control.in > "$(DBGSYM_ROOT)/DEBIAN/control"
	dpkg-deb --root-owner-group --build "$(DBGSYM_ROOT)" \
	  .build/keychaind-dbgsym_$(DEB_VERSION)_$(DEB_ARCH).deb

# keychaind and keychainctl built optimised with AddressSanitizer (Swift and C) and
# UndefinedBehaviorSanitizer (the C targets: Swift has no -sanitize=undefined on Linux, and traps
# on overflow and out-of-bounds access by itself), in .build-sanitize, then the tests that start
# them, the call fuzzer among them, run against those binaries. Leak detection is off: Swift keeps
# enum payload pointers with tag bits LeakSanitizer cannot follow, so it reports the static
# method declarations as leaked.
SANITIZE_FLAGS = -c release --scratch-path .build-sanitize --sanitize=address \
  -Xcc -fsanitize=undefined -Xcc -fsanitize-trap=undefined
SANITIZE_BIN = $(shell $(SWIFT) build $(SANITIZE_FLAGS) --show-bin-path 2>/dev/null)
sanitize:
	$(SWIFT) build $(SANITIZE_FLAGS) --product keychaind
	ln -sf keychaind "$(SANITIZE_BIN)/keychainctl"
	KEYCHAIND_BINARY="$(SANITIZE_BIN)/keychaind" KEYCHAINCTL_BINARY="$(SANITIZE_BIN)/keychainctl" \
	  KEYCHAIN_SANITIZERS=address,undefined ASAN_OPTIONS=detect_leaks=0 \
	  $(SWIFT) test --filter 'KeychaindTests|KeychainTests' $(TESTFLAGS)

# Every libFuzzer target in Fuzz/ for FUZZ_SECONDS each, its corpus kept in Fuzz/corpus.
FUZZ_SECONDS ?= 60
fuzz:
	Fuzz/run-all.sh $(FUZZ_SECONDS)

# keychainctl's man page, and both tools' shell completions, generated from their command
# definitions (keychaind's man page is written by hand).
docs: DEBUG_BIN = $(shell $(SWIFT) build --show-bin-path)
docs:
	$(SWIFT) build --product keychaind
	ln -sf keychaind "$(DEBUG_BIN)/keychainctl"
	# The plugin builds ArgumentParser's manual generator (it documents executable products, and
	# keychainctl is a link to one); the generator then reads keychainctl's commands.
	$(SWIFT) package plugin --allow-writing-to-package-directory generate-manual --configuration debug --section 1 >/dev/null
	"$(DEBUG_BIN)/generate-manual-tool" "$(DEBUG_BIN)/keychainctl" --section 1 -o data
	for tool in keychaind keychainctl; do \
	  for shell in bash zsh fish; do \
	    "$(DEBUG_BIN)/$$tool" --generate-completion-script $$shell > data/completions/$$tool.$$shell; \
	  done; \
	  mv data/completions/$$tool.zsh data/completions/_$$tool; \
	done
