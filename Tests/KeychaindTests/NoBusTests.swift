// SPDX-License-Identifier: MIT
//
// With no session bus keychaind starts a private one and prints its address; whatever ends
// keychaind (SIGTERM, Ctrl-C's SIGINT, even SIGKILL) ends that bus too, so nothing is left
// behind, orphaned.

import Foundation
import KeychainDBus
import KeychainTesting
import Testing

@Suite struct NoBusTests {
  /// The pids of the running (not zombie) children of `parent`.
  private func children(of parent: pid_t) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(pid_t.init).filter { pid in
      guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
      else { return false }
      let fields = stat[stat.index(after: end)...].split(separator: " ")
      return fields.count > 2 && fields[0] != "Z" && pid_t(fields[1]) == parent
    }
  }

  private func isRunning(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let end = stat.lastIndex(of: ")")
    else { return false }
    return stat[stat.index(after: end)...].split(separator: " ").first != "Z"
  }

  @Test(arguments: [SIGTERM, SIGINT, SIGKILL])
  func aSignalToKeychaindLeavesNoBusBehind(signal: Int32) async throws {
    let home = try TemporaryDirectory(prefix: "no-bus")
    var environment = ProcessInfo.processInfo.environment
    environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
    for (key, value) in [
      "HOME": home.path, "XDG_DATA_HOME": home.path + "/data",
      "XDG_CONFIG_HOME": home.path + "/config", "XDG_RUNTIME_DIR": home.path, "PINENTRY": "none",
    ] {
      environment[key] = value
    }
    let daemon = try ChildProcess(
      Binaries.keychaind, ["--verbose"], environment: environment,
      stderrFile: home.path + "/log", pipeStdout: true)
    let line = try daemon.readLine(timeout: .seconds(30))
    let address = try #require(
      line.split(separator: "'").dropFirst().first.map(String.init), "printed: \(line)")
    let bus = children(of: daemon.pid)
    #expect(bus.count == 1, "the private bus daemon is keychaind's one child")
    // The bus works and keychaind serves on it.
    let client = try await Connection.connect(to: address)
    var owner: BusName?
    for _ in 0..<1500 where owner == nil {  // a bound, not a speed check
      owner = try await client.nameOwner("org.freedesktop.secrets")
      if owner == nil { try await Task.sleep(for: .milliseconds(20)) }
    }
    #expect(owner != nil)
    await client.close()

    daemon.signal(signal)
    #expect(daemon.wait(timeout: .seconds(30)) != nil)
    for _ in 0..<500 where bus.contains(where: isRunning) {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(!bus.contains(where: isRunning), "the bus outlived keychaind after signal \(signal)")
  }
}
