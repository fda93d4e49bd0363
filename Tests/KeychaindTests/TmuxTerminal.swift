// SPDX-License-Identifier: MIT

import Foundation
import KeychainTesting

/// A tmux server of its own (its own socket), with one pane to be the terminal: what a person
/// at a terminal is, to keychaind, and what a pinentry on a tty draws on.
final class TmuxTerminal {
  let directory: TemporaryDirectory
  var socket: String { directory.path + "/tmux" }
  let environment: [String: String]?

  /// A pane running `command` (a shell command line), with `environment` (the test's own when
  /// nil).
  init(running command: String = "sleep 600", environment: [String: String]? = nil) throws {
    directory = try TemporaryDirectory(prefix: "tmux")
    self.environment = environment
    try tmux(["new-session", "-d", "-s", "t", "-x", "160", "-y", "20", command])
  }

  deinit { _ = try? tmux(["kill-server"]) }

  @discardableResult
  func tmux(_ arguments: [String]) throws -> String {
    let result = try runCommand(
      "tmux", ["-S", socket] + arguments, environment: environment, timeout: .seconds(20))
    guard result.status == 0 else { throw TestingError("tmux \(arguments): \(result.stderr)") }
    return result.stdout
  }

  var tty: String {
    get throws {
      try tmux(["display", "-p", "-t", "t", "#{pane_tty}"]).trimmingCharacters(
        in: .whitespacesAndNewlines)
    }
  }

  /// Waits (a bound, not a speed check) until the screen shows `text`.
  func waitFor(_ text: String) async throws -> String {
    for _ in 0..<1500 {
      let screen = try tmux(["capture-pane", "-p", "-t", "t"])
      if screen.contains(text) { return screen }
      try await Task.sleep(for: .milliseconds(20))
    }
    throw TestingError("the terminal never showed '\(text)'")
  }

  /// Types `command` at the pane's shell and waits until it is done; what it printed, its
  /// output sent to a file so that the screen's width does not matter.
  func run(_ command: String) async throws -> String {
    let marker = UUID().uuidString
    let output = directory.path + "/\(marker).out"
    // The shell prints the marker worked out (42), which the command as typed does not show.
    try tmux(
      [
        "send-keys", "-t", "t", "\(command) > \(output) 2>&1; echo done-$((6*7))-\(marker)",
        "Enter",
      ])
    _ = try await waitFor("done-42-\(marker)")
    return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
  }
}
