// SPDX-License-Identifier: MIT
//
// keychaind's command line: a start with flags alone skips ArgumentParser (its reflection was a
// quarter of a cold start) and must mean what ArgumentParser would make of it; anything else is
// ArgumentParser's. Then the binary as D-Bus starts it, with no argument: refused with status 4
// and the owner named while another provider holds the name.

import KeychainTesting
import Testing

@testable import keychaind

@Suite struct KeychaindCommandLineTests {
  /// Every order of every subset of the flags.
  static let flagLines: [[String]] = {
    var lines: [[String]] = [[]]
    for flag in ["--unlock", "--replace", "--verbose"] {
      lines += lines.flatMap { line in
        (0...line.count).map { index in
          var longer = line
          longer.insert(flag, at: index)
          return longer
        }
      }
    }
    return lines
  }()

  @Test(arguments: flagLines)
  func flagsAloneMeanWhatArgumentParserReads(_ arguments: [String]) throws {
    let parsed = try Keychaind.parse(arguments)
    let start = try #require(DaemonStart(flagsOnly: arguments))
    #expect(start.unlock == parsed.unlock)
    #expect(start.replace == parsed.replace)
    #expect(start.verbose == parsed.verbose)
    #expect(start.dataDirectory == nil && start.configurationPath == nil)
  }

  @Test func anythingElseIsArgumentParsers() {
    for arguments in [
      ["--help"], ["--version"], ["-h"], ["--data-dir", "/tmp/x"], ["--config=/tmp/c"],
      ["--verbose", "--verbose"], ["--unlock=true"], ["--Verbose"], ["serve"], [""],
    ] {
      #expect(DaemonStart(flagsOnly: arguments) == nil, "\(arguments)")
    }
  }

  @Test func startedWithNoArgumentWhileTheNameIsTakenItSaysByWhomAndExits4() async throws {
    let daemon = try await DaemonProcess()
    let second = try daemon.run(Binaries.keychaind, [])
    #expect(second.status == 4, "\(second.stderr)")
    #expect(second.stderr.contains("org.freedesktop.secrets belongs to"), "\(second.stderr)")
  }
}
