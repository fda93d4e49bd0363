// SPDX-License-Identifier: MIT
//
// Data at rest and process hardening, checked on the real daemon: what clients write through
// D-Bus never reaches the disk (or the log) in the clear, the files are private and a looser
// mode stops the daemon, and the process cannot dump core.

import Foundation
import KeychainDBus
import KeychainTesting
import Testing

@Suite struct DaemonSecurityTests {
  /// Every file under the daemon's data directory, by path.
  static func files(under directory: String) throws -> [String: [UInt8]] {
    var found: [String: [UInt8]] = [:]
    let names = FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []
    for name in names {
      let path = directory + "/" + name
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
        !isDirectory.boolValue
      {
        found[path] = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
      }
    }
    return found
  }

  @Test func nothingWrittenThroughDBusIsOnDiskOrInTheLogInTheClear() async throws {
    let daemon = try await DaemonProcess()
    let markers = [
      "label": "LabelMarker7f3a", "attribute": "AttributeMarker19c2",
      "secret": "SecretMarker5e8d",
    ]
    let stored = try daemon.run(
      "secret-tool",
      ["store", "--label=\(markers["label"]!)", "service", markers["attribute"]!],
      stdin: Array(markers["secret"]!.utf8))
    #expect(stored.status == 0)
    // A second item, changed and deleted, so that freed pages and the WAL are exercised too.
    for _ in 0..<2 {
      _ = try daemon.run(
        "secret-tool", ["store", "--label=\(markers["label"]!)2", "kind", markers["attribute"]!],
        stdin: Array((markers["secret"]! + "2").utf8))
    }
    #expect(try daemon.run("secret-tool", ["clear", "kind", markers["attribute"]!]).status == 0)
    let lookup = try daemon.run("secret-tool", ["lookup", "service", markers["attribute"]!])
    #expect(lookup.stdout == markers["secret"]!, "the item is there to be found")

    let directory = daemon.home.path + "/.local/share/keychaind"
    let files = try Self.files(under: directory)
    #expect(files.keys.contains { $0.hasSuffix("-wal") }, "checked with the WAL present")
    for (path, bytes) in files {
      for (kind, marker) in markers {
        #expect(!bytes.contains(Array(marker.utf8)), "the \(kind) is readable in \(path)")
      }
    }
    #expect(!daemon.log.contains(markers["secret"]!), "the secret is in the log")
    _ = daemon.terminate()
  }

  @Test func filesArePrivateAndALooserModeStopsTheDaemon() async throws {
    let daemon = try await DaemonProcess()
    let directory = daemon.home.path + "/.local/share/keychaind"
    var info = stat()
    #expect(stat(directory, &info) == 0 && info.st_mode & 0o777 == 0o700)
    for path in try Self.files(under: directory).keys {
      #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(path)")
    }
    #expect(daemon.terminate() == 0)

    chmod(directory + "/keychain.db", 0o644)
    let refused = try daemon.run(Binaries.keychaind, ["--unlock"], stdin: Array("x".utf8))
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("keychain.db"), "names the file: \(refused.stderr)")
    // Refused, not repaired behind the user's back.
    #expect(stat(directory + "/keychain.db", &info) == 0 && info.st_mode & 0o777 == 0o644)
  }

  @Test func theDaemonCannotDumpCore() async throws {
    let daemon = try await DaemonProcess()
    let connection = try await daemon.bus.connect()
    let pid = try #require(try await connection.credentials(of: "org.freedesktop.secrets").pid)
    let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
    let core = try #require(
      limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
    #expect(
      core.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == [
        "0", "0",
      ])
    await connection.close()
    _ = daemon.terminate()
  }
}
