// SPDX-License-Identifier: MIT
//
// Start-up's code leaves the resident set once start-up is over: keychaind unmaps the pages of
// its read-only segments (keychain_release_startup_pages), which the kernel maps again from
// its page cache when they are next run. Checked on the real binary through /proc.

import Foundation
import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
import Testing

@Suite struct StartupMemoryTests {
  /// Size and resident KiB of the executable's code mapping (r-xp) of `pid`.
  static func codePages(_ pid: UInt32) throws -> (size: Int, resident: Int) {
    let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    var (size, resident, inCode) = (0, 0, false)
    for line in try String(contentsOfFile: "/proc/\(pid)/smaps", encoding: .utf8)
      .split(separator: "\n")
    {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
        inCode = fields.count >= 6 && fields[1] == "r-xp" && String(fields[5]) == executable
      } else if inCode, fields.count >= 2, let kib = Int(fields[1]) {
        if fields[0] == "Size:" { size += kib }
        if fields[0] == "Rss:" { resident += kib }
      }
    }
    return (size, resident)
  }

  @Test func startUpCodeLeavesTheResidentSet() async throws {
    // Locked, so that no unlock's index check runs in the background after start-up, and
    // with test minutes an hour long, so that no lock timer ticks before the measure: any
    // code run after the release maps pages back (64 KiB around each fault).
    let daemon = try await DaemonProcess(
      password: nil, environment: ["KEYCHAIND_TEST_MINUTE_SECONDS": "3600"])
    let connection = try await daemon.bus.connect()
    // Asked of the bus, not of keychaind: no call of keychaind's runs before the measure.
    let pid = try #require(try await connection.credentials(of: SecretService.busName).pid)
    await connection.close()
    for _ in 0..<500 where !daemon.log.contains("start-up over: unmapped") {
      try await Task.sleep(for: .milliseconds(20))  // a bound, not a speed check
    }
    #expect(daemon.log.contains("start-up over: unmapped"), "\(daemon.log)")
    let code = try Self.codePages(pid)
    // Start-up had most of it resident (about three quarters, measured); a quarter is the bound.
    #expect(code.size > 0 && code.resident * 4 < code.size, "\(code)")
  }
}
