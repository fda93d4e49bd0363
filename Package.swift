// swift-tools-version:6.1
// SPDX-License-Identifier: MIT
//
// Keychain for Linux: a Secret Service provider (keychaind), the Keychain query model as a
// Swift library, and keychainctl. Module map and dependency rules: ARCHITECTURE in README.md.

import PackageDescription

let package = Package(
  name: "keychain-linux",
  platforms: [.macOS(.v15)],
  products: [
    // keychaind, and keychainctl when run by that name (make build links it).
    .executable(name: "keychaind", targets: ["KeychainMain"]),
    .executable(name: "keychain-load", targets: ["keychain-load"]),
    .library(name: "KeychainDBus", targets: ["KeychainDBus"]),
    .library(name: "KeychainCrypto", targets: ["KeychainCrypto"]),
    .library(name: "KeychainCore", targets: ["KeychainCore"]),
    .library(name: "KeychainStore", targets: ["KeychainStore"]),
    // Other keyrings' files (for the fuzzer, which builds as its own package).
    .library(name: "KeychainImport", targets: ["KeychainImport"]),
    .library(name: "SecretServiceProtocol", targets: ["SecretServiceProtocol"]),
    // The seeds' API for Swift programs: SecItemAdd & co, kSec… constants, SecKey.
    .library(name: "Keychain", targets: ["Keychain"]),
    .library(name: "SecretServiceClient", targets: ["SecretServiceClient"]),
    // Private bus, child processes and a demo service, for tests and the benchmarks package.
    .library(name: "KeychainTesting", targets: ["KeychainTesting"]),
    // A SQLite VFS that sees every sync, for LD_PRELOAD into keychaind in the tests only.
    .library(name: "KeychainFaultVFS", type: .dynamic, targets: ["KeychainFaultVFS"]),
    .library(name: "KeychainCopyCounter", type: .dynamic, targets: ["KeychainCopyCounter"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
  ],
  targets: [
    // libdbus and libgcrypt: imported by KeychainDBus and KeychainCrypto alone (as the process
    // wrappers are by KeychainSystem; .ci/check-c-imports keeps it so). Everything above them
    // speaks Swift.
    .systemLibrary(
      name: "CKeychainDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
    .systemLibrary(
      name: "CKeychainGcrypt", pkgConfig: "libgcrypt", providers: [.apt(["libgcrypt20-dev"])]),
    // gcry_control is variadic, which Swift cannot call: a few fixed-signature wrappers.
    .target(name: "CKeychainGcryptShim", dependencies: ["CKeychainGcrypt"]),

    .target(
      name: "KeychainDBus",
      dependencies: [
        "CKeychainDBus",
        .product(name: "Logging", package: "swift-log"),
      ]),

    .target(name: "KeychainCrypto", dependencies: ["CKeychainGcrypt", "CKeychainGcryptShim"]),

    // The query model: pure Swift, no I/O.
    .target(name: "KeychainCore"),

    // Per-application access: who a caller is (from /proc), the rules, and the chained audit
    // log; no D-Bus, no SQLite.
    .target(
      name: "KeychainAccess",
      dependencies: [
        "KeychainCrypto", "KeychainSystem", .product(name: "Logging", package: "swift-log"),
        .product(name: "SystemPackage", package: "swift-system"),
      ]),

    // The encrypted store: the only module that touches SQLite.
    .target(
      name: "KeychainStore",
      dependencies: [
        "KeychainCore", "KeychainCrypto", "KeychainAccess", "KeychainSystem",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "SystemPackage", package: "swift-system"),
      ]),

    // gnome-keyring's, oo7's and KDE's keyring files, read and merged into the store, and v1
    // and v0 keyring files written for going back; no D-Bus.
    .target(
      name: "KeychainImport",
      dependencies: [
        "KeychainStore", "KeychainCrypto", "KeychainSystem", "KWalletFormat",
        .product(name: "SystemPackage", package: "swift-system"),
      ]),

    // What the daemon and the clients share: names, paths, the secret struct, sessions.
    .target(name: "SecretServiceProtocol", dependencies: ["KeychainDBus", "KeychainCrypto"]),

    // KDE's KWallet data: an entry as an item, Qt's serialisation, kwalletrc; no D-Bus.
    .target(name: "KWalletFormat"),
    // KDE's org.kde.KWallet declared whole (it brings KWalletFormat with it).
    .target(name: "KWalletProtocol", dependencies: ["KWalletFormat", "KeychainDBus"]),

    // A client of any Secret Service provider; never sees the store or the server.
    .target(
      name: "SecretServiceClient",
      dependencies: ["SecretServiceProtocol", "KeychainDBus", "KeychainCrypto"]),

    // Apple's spellings over two backends: the bus (SecretServiceClient) or an embedded store.
    .target(
      name: "Keychain",
      dependencies: [
        "KeychainCore", "KeychainCrypto", "KeychainStore", "KeychainDBus", "SecretServiceClient",
        "SecretServiceProtocol",
      ]),

    // The command-line tool: secret-tool's and security(1)'s verbs, collections, status.
    .target(
      name: "keychainctl",
      dependencies: [
        "Keychain", "SecretServiceClient", "SecretServiceProtocol", "KWalletProtocol",
        "KeychainCrypto", "KeychainDBus", "KeychainStore", "KeychainImport", "KeyringControl",
        "KeychainSystem", "KeychainAccess", "CKeychainQR",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "SystemPackage", package: "swift-system"),
      ]),
    // A new recovery key as a QR code, through libqrencode, loaded with dlopen: C, imported by
    // keychainctl alone.
    .target(name: "CKeychainQR"),

    // The seeds' sample code, compiled as it is written (import Keychain for import Security).
    .executableTarget(name: "keychain-samples", dependencies: ["Keychain"]),

    // prctl is variadic, and spawned children need their signal state reset: C wrappers,
    // imported by KeychainSystem alone.
    .target(name: "CKeychainProcess"),

    // systemd's LoadCredential= served from the keyring: the socket, its peers and the address
    // systemd binds.
    .target(name: "KeychainCredentials", dependencies: ["KeychainSystem", "KeychainCrypto"]),

    // Sealing to the TPM through tpm2-tss's ESAPI, loaded with dlopen when first used: C,
    // imported by KeychainTPM alone.
    .target(name: "CKeychainTPM"),
    .target(name: "KeychainTPM", dependencies: ["CKeychainTPM", "KeychainCrypto"]),
    // A FIDO2 key's hmac-secret through libfido2, loaded with dlopen when first used: C,
    // imported by KeychainFIDO2 alone.
    .target(name: "CKeychainFIDO2"),
    .target(name: "KeychainFIDO2", dependencies: ["CKeychainFIDO2", "KeychainCrypto"]),

    // System calls in one place: whole reads, writes and sends (EINTR and short counts) on
    // swift-system's FileDescriptor, durable files, Unix sockets, the kernel's clocks, secrets
    // read into locked memory, a scoped SIGPIPE block, spawning with a clean signal state, and
    // the process-wide calls (.ci/check-system-calls keeps them here).
    .target(
      name: "KeychainSystem",
      dependencies: [
        "CKeychainProcess", "KeychainCrypto",
        .product(name: "SystemPackage", package: "swift-system"),
      ]),

    // Asking a person: pinentry in the Assuan protocol, the password dialogs' texts and rules,
    // and the queue that shows one dialog at a time.
    .target(
      name: "KeychainPrompt",
      dependencies: [
        "KeychainSystem", "KeychainCrypto",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "SystemPackage", package: "swift-system"),
      ]),

    // GNOME's system prompt (gcr's D-Bus protocol and secret exchange): the same questions as
    // KeychainPrompt's pinentry dialogs, in the dialogs GNOME Shell or gcr-prompter shows.
    .target(
      name: "KeychainSystemPrompt",
      dependencies: ["KeychainPrompt", "KeychainCrypto", "KeychainDBus"]),

    // The daemon's core, which every API is served on as a front end (FrontEnd, DaemonCore):
    // per-call views of the store, events, the unlocker, prompts, sessions, access control and
    // its audit, the blocking pool, the clock, memory release. It serves no interface itself.
    .target(
      name: "KeychainDaemonCore",
      dependencies: [
        "SecretServiceProtocol", "KeychainStore", "KeychainDBus", "KeychainCrypto",
        "KeychainAccess", "KeychainSystem", "KeychainPrompt", "KeychainSystemPrompt",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "SystemPackage", package: "swift-system"),
      ]),

    // The Secret Service on the core: one type per interface, gnome-keyring's extensions, its
    // signals, and the object tree of org.freedesktop.secrets that the other front ends mount on.
    .target(
      name: "SecretServiceServer",
      dependencies: [
        "KeychainDaemonCore", "SecretServiceProtocol", "KeychainStore", "KeychainDBus",
        "KeychainCrypto", "KeychainAccess", .product(name: "Logging", package: "swift-log"),
      ]),

    // keychaind's own Import, Locking and Access interfaces (what keychainctl speaks), served on
    // the daemon's core: a front end.
    .target(
      name: "ManagementServer",
      dependencies: [
        "KeychainDaemonCore", "SecretServiceProtocol", "KeychainStore", "KeychainDBus",
        "KeychainCrypto", "KeychainAccess", "KeychainImport", "KWalletProtocol", "KeychainTPM",
        "KeychainFIDO2", "KeychainCredentials", .product(name: "Logging", package: "swift-log"),
      ]),

    // Scoped shares: a private bus per share on which the daemon's core serves the Secret
    // Service over a few items, and the Shares interface that makes them: a front end.
    .target(
      name: "ShareServer",
      dependencies: [
        "KeychainDaemonCore", "SecretServiceServer", "SecretServiceProtocol", "KeychainStore",
        "KeychainDBus", "KeychainSystem", .product(name: "Logging", package: "swift-log"),
      ]),

    // The Flatpak secret portal's backend, served on the daemon's core: a front end.
    .target(
      name: "PortalServer",
      dependencies: [
        "KeychainDaemonCore", "SecretServiceProtocol", "KeychainStore", "KeychainDBus",
        "KeychainCrypto", "KeychainAccess", "KeychainSystem",
        .product(name: "SystemPackage", package: "swift-system"),
      ]),

    // KDE's org.kde.KWallet served on the daemon's core: a front end beside the Secret Service.
    .target(
      name: "KWalletServer",
      dependencies: [
        "KeychainDaemonCore", "SecretServiceProtocol", "KWalletProtocol", "KeychainStore",
        "KeychainDBus", "KeychainCrypto",
      ]),

    // gnome-keyring's control protocol (pam_gnome_keyring's socket): wire format and client.
    .target(
      name: "KeyringControl",
      dependencies: [
        "KeychainSystem", "KeychainCrypto",
        .product(name: "SystemPackage", package: "swift-system"),
      ]),

    // The desktop session's side of the daemon: lock timers and events (screen lock, sleep,
    // logout) through logind and the screensaver, and the login unlock from PAM. Its clock is
    // the daemon's, which tests move by hand.
    .target(
      name: "KeychainSession",
      dependencies: [
        "KeychainDaemonCore", "KeychainStore", "KeychainCrypto", "KeychainDBus",
        "KeyringControl", .product(name: "Logging", package: "swift-log"),
      ]),

    .target(
      name: "keychaind",
      dependencies: [
        "KeychainSystem", "KeychainDaemonCore", "SecretServiceServer", "KWalletServer",
        "PortalServer", "ManagementServer", "ShareServer", "KeychainSession", "KeychainStore",
        "KeychainCrypto", "KeychainDBus", "KeyringControl", "SecretServiceProtocol",
        "KWalletProtocol", "KeychainImport", "KeychainAccess", "KeychainTPM",
        "KeychainFIDO2", "KeychainCredentials",
        .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ]),

    // The one program (product keychaind): the daemon, or keychainctl by the name it is run by.
    // Linked by lld with packed relative relocations (glibc 2.36's DT_RELR), and without the
    // dynamic symbol table the toolchain's static linking asks for (every one of our symbols,
    // which nothing looks up: a crash is read with keychaind-dbgsym): 3.7 MB less to install and
    // to load. lld marks the program as needing GLIBC_ABI_DT_RELR, so an older C library
    // refuses it by name instead of loading it wrongly.
    .executableTarget(
      name: "KeychainMain", dependencies: ["keychaind", "keychainctl", "CKeychainICUData"],
      linkerSettings: [
        .unsafeFlags(
          [
            "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker",
            "--no-export-dynamic",
          ],
          .when(platforms: [.linux], configuration: .release))
      ]),
    // ICU's English data, linked in place of the toolchain's 34 MB (subset.py, run by make build).
    // Nothing includes it: it only defines the symbol ICU reads.
    .target(
      name: "CKeychainICUData", exclude: ["generated", "subset.py"], publicHeadersPath: "."),

    // Drives any Secret Service provider on the session bus, timing and checking every call.
    .executableTarget(
      name: "keychain-load",
      dependencies: [
        "KeychainDBus", "KeychainCrypto", "KeychainStore", "SecretServiceProtocol",
        "KeychainSystem",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "SystemPackage", package: "swift-system"),
      ]),

    // The full crash-safety run (the tests run a short one); not a product.
    .executableTarget(
      name: "keychain-crash",
      dependencies: [
        "KeychainTesting", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),

    // Counts syncs and keeps what a power cut would leave (tests only, through LD_PRELOAD).
    .target(name: "KeychainFaultVFS", linkerSettings: [.linkedLibrary("sqlite3")]),
    // Counts large allocations and copies (tests only, through LD_PRELOAD).
    .target(name: "KeychainCopyCounter"),

    // Test support: private dbus-daemon, child processes, temp dirs. Never linked into products.
    .target(
      name: "KeychainTesting",
      dependencies: [
        "KeychainDBus", "KeychainSystem", "SecretServiceProtocol", "KeychainAccess",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "SystemPackage", package: "swift-system"),
      ]),

    .testTarget(
      name: "KeychainDBusTests",
      dependencies: ["KeychainDBus", "KeychainTesting", "CKeychainDBus"]),
    .testTarget(name: "KeychainCryptoTests", dependencies: ["KeychainCrypto"]),
    .testTarget(
      name: "KeychainTPMTests", dependencies: ["KeychainTPM", "KeychainCrypto", "KeychainTesting"]),
    .testTarget(
      name: "KeychainSystemTests",
      dependencies: [
        "KeychainSystem", "KeychainCrypto",
        .product(name: "SystemPackage", package: "swift-system"),
      ]),
    .testTarget(name: "KeychainCoreTests", dependencies: ["KeychainCore"]),
    .testTarget(
      name: "KeychainAccessTests",
      dependencies: [
        "KeychainAccess", "KeychainCrypto", "KeychainPrompt", "KeychainTesting",
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(
      name: "KeychainStoreTests",
      dependencies: [
        "KeychainStore", "KeychainCore", "KeychainCrypto", "KeychainTesting", "KeychainImport",
        "KeychainAccess", .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    // The object tree in memory (InMemoryTransport): no bus, no daemon process.
    .testTarget(
      name: "SecretServiceServerTests",
      dependencies: [
        "KeychainDaemonCore", "SecretServiceServer", "SecretServiceProtocol", "KWalletProtocol",
        "KeychainStore", "KeychainDBus", "KeychainCrypto", "KeychainTesting",
      ]),
    // The session logic in memory: lock timers on a clock the test moves.
    .testTarget(
      name: "KeychainSessionTests",
      dependencies: [
        "KeychainSession", "KeychainDaemonCore", "SecretServiceServer", "SecretServiceProtocol",
        "KeychainStore", "KeychainDBus", "KeychainCrypto", "KeychainTesting",
      ]),
    .testTarget(
      name: "KWalletProtocolTests",
      dependencies: ["KWalletProtocol", "KWalletFormat", "KeychainDBus"]),
    .testTarget(
      name: "SecretServiceProtocolTests",
      dependencies: ["SecretServiceProtocol", "KeychainDBus", "KeychainCrypto", "KeychainTesting"]),
    .testTarget(
      name: "KeychainTests", dependencies: ["Keychain", "KeychainTesting", "KeychainMain"]),
    // Black box: the built keychaind on a private bus, driven by real clients.
    .testTarget(
      name: "KeychaindTests",
      dependencies: [
        "KeychainMain", "keychain-load", "keychain-crash", "keychain-samples", "keychainctl",
        "keychaind", "KeychainTesting",
        "KeychainDBus",
        "KeychainStore", "KeychainImport", "KeyringControl",
        "KeychainDaemonCore", "SecretServiceServer", "KWalletServer", "ManagementServer",
        "KWalletProtocol", "SecretServiceProtocol", "KeychainCrypto",
        .product(name: "Logging", package: "swift-log"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)
