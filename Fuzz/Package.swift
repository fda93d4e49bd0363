// swift-tools-version:6.1
// SPDX-License-Identifier: MIT
//
// libFuzzer targets, in their own package because they have no main (libFuzzer brings it) and
// must be built with the fuzzer sanitizer: run them with `Fuzz/run.sh TARGET [libFuzzer options]`.

import PackageDescription

let package = Package(
  name: "keychain-fuzz",
  dependencies: [.package(name: "keychain-linux", path: "..")],
  targets: [
    .target(name: "FuzzDriver"),
    // The D-Bus marshaller: bytes → libdbus validation → our decoder → our encoder → again.
    .executableTarget(
      name: "MarshalFuzzer",
      dependencies: ["FuzzDriver", .product(name: "KeychainDBus", package: "keychain-linux")]),
    // Keyring files from elsewhere: oo7's v1, gnome-keyring's binary and textual formats.
    .executableTarget(
      name: "KeyringFuzzer",
      dependencies: ["FuzzDriver", .product(name: "KeychainImport", package: "keychain-linux")]),
    // The Keychain query parser: a dictionary of kSec keys and values of any type.
    .executableTarget(
      name: "QueryFuzzer",
      dependencies: ["FuzzDriver", .product(name: "KeychainCore", package: "keychain-linux")]),
  ],
  swiftLanguageModes: [.v6]
)
