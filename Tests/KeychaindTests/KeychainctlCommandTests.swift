// SPDX-License-Identifier: MIT
//
// The command lines keychaind tells a person to run (in refusals, notifications, the log and
// import reports), each parsed by keychainctl's own parser, in memory: a renamed command or
// option fails here rather than in somebody's terminal.

import KeychainImport
import SecretServiceProtocol
import Testing

@testable import keychainctl

@Suite struct KeychainctlCommandTests {
  /// `line` split as a shell splits it; single quotes are the only quoting the hints use.
  static func words(_ line: String) -> [String] {
    var words: [String] = []
    var current = ""
    var quoted = false
    var started = false
    for character in line {
      if character == "'" {
        quoted.toggle()
        started = true
      } else if character == " ", !quoted {
        if started { words.append(current) }
        (current, started) = ("", false)
      } else {
        current.append(character)
        started = true
      }
    }
    if started { words.append(current) }
    return words
  }

  /// The daemon's lines, and the import commands its log names for a file still waiting (a
  /// backup's takes the backup file).
  static let lines =
    KeychainctlCommand.samples
    + ImportSourceKind.allCases.map {
      $0 == .backup ? $0.command + " /tmp/keys.backup" : $0.command
    }

  @Test(arguments: lines)
  func keychainctlTakesEveryCommandLineKeychaindNames(_ line: String) throws {
    let words = Self.words(line)
    try #require(words.first == "keychainctl", "\(line)")
    #expect(throws: Never.self, "\(line)") {
      _ = try Keychainctl.parseAsRoot(Array(words.dropFirst()))
    }
  }

  /// The same check refuses what keychainctl does not take, so the test above can fail.
  @Test func aMistypedLineIsRefused() {
    #expect(
      Self.words("keychainctl access allow --app 'a b' X") == [
        "keychainctl", "access", "allow", "--app", "a b", "X",
      ])
    #expect(throws: (any Error).self) {
      _ = try Keychainctl.parseAsRoot(["access", "allow", "--application", "x", "/item"])
    }
    #expect(throws: (any Error).self) { _ = try Keychainctl.parseAsRoot(["audit", "check"]) }
  }
}
