// swift-tools-version:6.1
// SPDX-License-Identifier: MIT
//
// A reduction of the Swift 6.3.1 miscompile that crashed the release keychaind on SetSecret
// (issue 25): correct at -Onone, wrong at -O. See README.md; `./run.sh` builds both and runs them.

import PackageDescription

let package = Package(
  name: "EmptyPackAwait",
  targets: [
    // The shape of KeychainDBus's typed dispatch: `Takes`, `Returns` and an inlinable `on`.
    .target(name: "Dispatching"),
    // A four-field struct passed through `on` to a handler that returns nothing.
    .executableTarget(name: "Reproducer", dependencies: ["Dispatching"]),
  ],
  swiftLanguageModes: [.v6]
)
