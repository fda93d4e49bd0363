// SPDX-License-Identifier: MIT
//
// A full disk, through the fault VFS's quota on the store's directory: a write is refused with
// an error a person can read, deleting still works (the store keeps a little space in reserve
// for it), nothing acknowledged is lost, and writes work again once there is room.

import Foundation
import KeychainTesting
import Testing

@Suite struct FullDiskTests {
  @Test func aFullDiskRefusesWritesClearlyAndStillDeletes() async throws {
    let vfs = try FaultVFS()
    let daemon = try await DaemonProcess(environment: vfs.environment)
    let store = daemon.home.path + "/.local/share/keychaind"
    func put(_ key: String, _ secret: String) throws -> CommandResult {
      try daemon.run(
        "secret-tool", ["store", "--label=\(key)", "disk", key], stdin: Array(secret.utf8))
    }
    func get(_ key: String) throws -> String {
      try daemon.run("secret-tool", ["lookup", "disk", key]).stdout
    }
    for key in ["a", "b", "c"] { #expect(try put(key, "secret \(key)").status == 0) }

    try vfs.fillDisk(store: store)
    let refused = try put("d", String(repeating: "x", count: 64 << 10))
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("no space left for the keyring"), "\(refused.stderr)")
    let cleared = try daemon.run("secret-tool", ["clear", "disk", "a"])
    #expect(cleared.status == 0, "\(cleared.stderr)\n\(daemon.log)")
    #expect(try get("a") == "")
    #expect(try get("b") == "secret b" && get("c") == "secret c")
    #expect(try get("d") == "")

    try vfs.fillDisk(store: nil)
    #expect(try put("d", "secret d").status == 0)
    #expect(daemon.terminate() == 0)
    try await daemon.start()
    #expect(try get("a") == "" && get("b") == "secret b" && get("d") == "secret d")
  }
}
