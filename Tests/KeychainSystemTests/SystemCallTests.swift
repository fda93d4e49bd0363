// SPDX-License-Identifier: MIT
//
// The system-call helpers on real descriptors: a secret read from a pipe loses exactly the
// trailing bytes asked for and no more than the limit is taken; a whole read stops at its
// limit; a write or send to a reader that has gone is an error, not the end of the process
// (SIGPIPE is blocked for it, and one it raised is not delivered later).

import Foundation
import KeychainCrypto
import KeychainSystem
import SystemPackage
import Testing

@Suite struct SystemCallTests {
  /// A pipe holding `bytes` (under 64 KiB), its write end closed: what a process reads from
  /// `echo … |`.
  private func pipe(holding bytes: [UInt8]) throws -> FileDescriptor {
    let (read, write) = try FileDescriptor.pipe()
    try bytes.withUnsafeBytes { try write.writeAll(bytes: $0) }
    try write.close()
    return read
  }

  private func bytes(_ secret: SecureBytes) -> [UInt8] { secret.withUnsafeBytes { Array($0) } }

  @Test func aSecretFromAPipeLosesOnlyWhatItsCallerSays() throws {
    let cases: [([UInt8], SecretReader.Trailing, [UInt8])] = [
      (Array("pw\n".utf8), .kept, Array("pw\n".utf8)),
      (Array("pw\n\n".utf8), .oneNewline, Array("pw\n".utf8)),
      (Array("pw\n\0".utf8), .newlinesAndNULs, Array("pw".utf8)),
      ([], .oneNewline, []),
    ]
    for (given, trailing, expected) in cases {
      let input = try pipe(holding: given)
      defer { try? input.close() }
      let secret = try SecretReader.read(
        from: input, prompt: "unused: not a terminal", maximumLength: 16, trailing: trailing)
      #expect(bytes(secret) == expected, "\(given) \(trailing)")
    }
  }

  @Test func aSecretOverTheLimitIsRefused() throws {
    let input = try pipe(holding: [UInt8](repeating: 0x61, count: 17))
    defer { try? input.close() }
    #expect(throws: SecretReader.Failure.tooLong(maximum: 16)) {
      try SecretReader.read(from: input, prompt: "", maximumLength: 16, trailing: .kept)
    }
  }

  @Test func aWholeReadStopsAtItsLimit() throws {
    // (Under a pipe's 64 KiB, which holds it all before anyone reads.)
    let input = try pipe(holding: [UInt8](repeating: 1, count: 50_000))
    defer { try? input.close() }
    #expect(throws: Errno.fileTooLarge) { try input.readToEnd(limit: 40_000) }
    let again = try pipe(holding: [1, 2, 3])
    defer { try? again.close() }
    #expect(try again.readToEnd() == [1, 2, 3])
  }

  @Test func writingToAReaderThatHasGoneIsAnErrorNotADeath() throws {
    let (read, write) = try FileDescriptor.pipe()
    try read.close()
    #expect(throws: Errno.brokenPipe) {
      try [1, 2, 3].withUnsafeBytes { try write.writeAll(bytes: $0) }
    }
    try write.close()
    // A socket whose peer closed: the send fails with EPIPE (MSG_NOSIGNAL), and this process
    // is still here to check it.
    var pair: [Int32] = [-1, -1]
    #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
    close(pair[1])
    let socket = FileDescriptor(rawValue: pair[0])
    defer { try? socket.close() }
    #expect(throws: Errno.brokenPipe) {
      try [1, 2, 3].withUnsafeBytes { try socket.sendAll($0) }
    }
  }

  @Test func waitingForInputSeesWhichDescriptorIsReady() throws {
    let (quietRead, quietWrite) = try FileDescriptor.pipe()
    let ready = try pipe(holding: [1])
    defer { for fd in [quietRead, quietWrite, ready] { try? fd.close() } }
    #expect(try FileDescriptor.waitReadable([quietRead, ready]) == [1])
    #expect(try FileDescriptor.waitReadable([quietRead], timeout: 0) == [])
  }
}
