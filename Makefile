# SPDX-License-Identifier: MIT
# Conventional entry points over SwiftPM.

PREFIX ?= /usr/local
SWIFT ?= swift
CONFIG ?= release

.PHONY: all build test lint format benchmark clean

all: build

build:
	$(SWIFT) build -c $(CONFIG)

# The whole test suite; each test starts its own private dbus-daemon.
test:
	$(SWIFT) test

lint:
	$(SWIFT) format lint --strict -r Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks

format:
	$(SWIFT) format format -i -r Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks

benchmark:
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark

clean:
	rm -rf .build Benchmarks/.build
