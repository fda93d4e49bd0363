// SPDX-License-Identifier: MIT
//
// Identities from real processes: a root-owned executable by path, a copy the user can change
// by path and content, a script by its interpreter and file, a front end with whoever ran it,
// and the cases that must come out unknown.

import Foundation
import KeychainAccess
import Testing

@Suite(.serialized) struct IdentityTests {
  let resolver = IdentityResolver()

  /// Starts `arguments`, waits until its process image is the program's, resolves it, and
  /// stops it.
  func identity(of arguments: [String]) throws -> AppIdentity {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    try process.run()
    defer {
      // SIGKILL: a signal mask inherited from the test runner may hold SIGTERM back.
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    let pid = UInt32(process.processIdentifier)
    // Until the exec has happened, /proc shows the parent's image.
    for _ in 0..<500 {
      if let facts = KernelFacts.shared.process(pid, full: true), facts.arguments == arguments {
        break
      }
      Thread.sleep(forTimeInterval: 0.01)
    }
    let facts = try #require(KernelFacts.shared.process(pid, full: true))
    return resolver.identity(
      pid: pid, startTime: facts.startTime, arrival: nil)
  }

  @Test func aRootOwnedExecutableIsIdentifiedByItsPath() throws {
    let identity = try identity(of: ["/usr/bin/sleep", "5"])
    #expect(identity.kind == .system)
    #expect(identity.key == "exe:/usr/bin/sleep")
    #expect(identity.pin == nil)
  }

  @Test func aCopyTheUserCanChangeIsPinnedToItsContent() throws {
    let copy = NSTemporaryDirectory() + "sleepy-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: copy) }
    try FileManager.default.copyItem(atPath: "/usr/bin/sleep", toPath: copy)
    let identity = try identity(of: [copy, "5"])
    #expect(identity.kind == .user)
    #expect(identity.key == "exe:\(copy)")
    #expect(identity.pin?.hasPrefix("sha256:") == true)
  }

  @Test func aScriptIsIdentifiedByItsInterpreterAndFile() throws {
    let script = NSTemporaryDirectory() + "sync-\(UUID().uuidString).py"
    defer { try? FileManager.default.removeItem(atPath: script) }
    try "import time\ntime.sleep(5)\n".write(toFile: script, atomically: true, encoding: .utf8)
    let identity = try identity(of: ["/usr/bin/python3", script])
    #expect(identity.kind == .script)
    #expect(identity.key.hasPrefix("script:/usr/bin/python3"))
    #expect(identity.key.hasSuffix(":\(script)"))
    #expect(identity.display.hasPrefix("sync-"))
    #expect(identity.strength == "command line")
  }

  @Test func aShellRunningACommandStringIsUnknown() throws {
    let identity = try identity(of: ["/bin/sh", "-c", "sleep 5"])
    #expect(identity.kind == .unknown)
    #expect(!identity.isRememberable)
  }

  @Test func aFrontEndIsPairedWithWhoeverRanIt() throws {
    // A program named as a front end (here `sleep` under the name secret-tool, which stays
    // alive to be looked at), run by this test program: the requester is the test binary.
    let directory = NSTemporaryDirectory() + "front-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let tool = directory + "/secret-tool"
    try FileManager.default.copyItem(atPath: "/usr/bin/sleep", toPath: tool)
    let me = try #require(KernelFacts.shared.process(UInt32(getpid()), full: true)?.executable)
    let identity = try identity(of: [tool, "5"])
    #expect(identity.kind == .via)
    #expect(identity.key == "via:exe:\(tool)@exe:\(me)")
    #expect(identity.display.hasPrefix("secret-tool, run by "))
    #expect(identity.pin?.hasPrefix("sha256:") == true)
  }

  @Test func aReusedProcessIdIsUnknown() throws {
    let pid = UInt32(getpid())
    let facts = try #require(KernelFacts.shared.process(pid, full: true))
    let identity = resolver.identity(pid: pid, startTime: facts.startTime + 1, arrival: nil)
    #expect(identity.kind == .unknown)
    // A connection that arrived before the process started was another process's.
    let early = resolver.identity(pid: pid, startTime: nil, arrival: facts.startTime - 10)
    #expect(early.kind == .unknown)
    let verified = resolver.identity(pid: pid, startTime: nil, arrival: facts.startTime + 10)
    #expect(verified.kind != .unknown && verified.verified)
  }

  @Test func aProcessThatLeftIsUnknown() {
    #expect(resolver.identity(pid: 999_999_999, startTime: nil, arrival: nil).kind == .unknown)
  }

  @Test func flatpakInfoGivesTheApplicationName() {
    let info = "[Application]\nname=org.example.App\nruntime=x\n[Instance]\nname=other\n"
    #expect(ProcessFacts.applicationName(info) == "org.example.App")
    #expect(ProcessFacts.applicationName("[Instance]\nname=x\n") == nil)
  }

  @Test func theStatLineIsParsedPastParenthesesInTheName() throws {
    let (command, fields) = try #require(
      ProcessFacts.parseStat("42 (a) b (c)) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 99 rest")
    )
    #expect(command == "a) b (c)")
    #expect(fields[1] == "1")
    #expect(fields[19] == "99")
  }
}
