// swift-tools-version:6.1
// SPDX-License-Identifier: MIT
//
// Benchmarks live in their own package so that the main build and its tests do not build the
// benchmark harness. Run from this directory: `swift package benchmark`.

import PackageDescription

let package = Package(
  name: "keychain-benchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "keychain-linux", path: ".."),
    .package(
      url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1",
      traits: ["MallocInterposer"]),
  ],
  targets: [
    .executableTarget(
      name: "DBusBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "package-benchmark"),
        .product(name: "KeychainDBus", package: "keychain-linux"),
        .product(name: "KeychainTesting", package: "keychain-linux"),
      ],
      path: "Benchmarks/DBusBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
    .executableTarget(
      name: "CryptoBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "package-benchmark"),
        .product(name: "KeychainCrypto", package: "keychain-linux"),
      ],
      path: "Benchmarks/CryptoBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
    .executableTarget(
      name: "StoreBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "package-benchmark"),
        .product(name: "KeychainStore", package: "keychain-linux"),
        .product(name: "KeychainCrypto", package: "keychain-linux"),
      ],
      path: "Benchmarks/StoreBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]),
  ],
  swiftLanguageModes: [.v6]
)
