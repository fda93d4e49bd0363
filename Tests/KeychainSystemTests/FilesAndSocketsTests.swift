// SPDX-License-Identifier: MIT
//
// KeychainSystem's files, sockets and clock on the real file system: a replaced file is whole
// and keeps its mode, a failed replace leaves nothing behind, a whole read past its limit is an
// error unless truncating was asked for, a listening socket is private from the start and
// answers, a path too long for a socket is refused rather than cut, and a process's start time
// turns into a date.

import Foundation
import KeychainSystem
import SystemPackage
import Testing

@Suite final class FilesAndSocketsTests {
  private let directory: String

  init() throws {
    directory = NSTemporaryDirectory() + "keychain-system-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
  }

  deinit { try? FileManager.default.removeItem(atPath: directory) }

  private func mode(_ path: String) throws -> Int {
    try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
  }

  private func contents(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  @Test func aReplacedFileIsWholeAndKeepsItsMode() throws {
    let path = directory + "/settings"
    try SystemFiles.replace(atPath: path, with: Array("one\n".utf8))
    #expect(try mode(path) == 0o600)
    chmod(path, 0o640)
    try SystemFiles.replace(atPath: path, with: Array("two\n".utf8))
    #expect(try contents(path) == Array("two\n".utf8))
    #expect(try mode(path) == 0o640)
    #expect(!FileManager.default.fileExists(atPath: path + ".new"))
  }

  @Test func aLinkAtTheTemporaryNameIsNotWrittenThrough() throws {
    let path = directory + "/settings"
    let elsewhere = directory + "/elsewhere"
    try FileManager.default.createSymbolicLink(
      atPath: path + ".new", withDestinationPath: elsewhere)
    try SystemFiles.replace(atPath: path, with: Array("mine".utf8))
    #expect(try contents(path) == Array("mine".utf8))
    #expect(!FileManager.default.fileExists(atPath: elsewhere))
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: path + ".new")) == nil)
  }

  @Test func aFailedReplaceLeavesNothingBehind() throws {
    let path = directory + "/missing/settings"
    #expect(throws: Errno.noSuchFileOrDirectory) {
      try SystemFiles.replace(atPath: path, with: Array("x".utf8))
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
  }

  @Test func aCommittedFileTakesTheNameAndTheTemporaryIsGone() throws {
    let (temporary, path) = (directory + "/db.new", directory + "/db")
    #expect(FileManager.default.createFile(atPath: temporary, contents: Data("made".utf8)))
    try SystemFiles.commit(temporary, to: path)
    #expect(try contents(path) == Array("made".utf8))
    #expect(!FileManager.default.fileExists(atPath: temporary))
    #expect(throws: Errno.noSuchFileOrDirectory) { try SystemFiles.commit(temporary, to: path) }
  }

  @Test func aWholeReadPastItsLimitFailsUnlessTruncating() throws {
    let path = directory + "/long"
    #expect(
      FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: 10_000)))
    #expect(throws: Errno.fileTooLarge) {
      try SystemFiles.read(atPath: path, limit: 4096, chunk: 1024)
    }
    let start = try SystemFiles.read(atPath: path, limit: 4096, chunk: 1024, truncating: true)
    #expect(start.count == 4096)
    #expect(try SystemFiles.read(atPath: path, limit: 10_000).count == 10_000)
  }

  @Test func aListeningSocketIsPrivateAndAnswers() throws {
    let path = directory + "/control"
    let listener = try UnixSocket.listen(at: path)
    defer { try? listener.close() }
    #expect(try mode(path) == 0o600)
    #expect(UnixSocket.boundPath(of: listener) == path)
    let client = try UnixSocket.connect(to: path)
    defer { try? client.close() }
    let server = try #require(try listener.acceptConnection())
    defer { try? server.close() }
    try Array("ping".utf8).withUnsafeBytes { try client.sendAll($0) }
    var received = [UInt8](repeating: 0, count: 4)
    let count = try received.withUnsafeMutableBytes { try server.read(filling: $0) }
    #expect(count == 4 && received == Array("ping".utf8))
  }

  @Test func aSocketPathTooLongOrMissingIsAnError() throws {
    let long = directory + "/" + String(repeating: "s", count: 120)
    #expect(throws: Errno.fileNameTooLong) { try UnixSocket.listen(at: long) }
    #expect(throws: Errno.fileNameTooLong) { try UnixSocket.connect(to: long) }
    #expect(!FileManager.default.fileExists(atPath: long))
    #expect(throws: Errno.noSuchFileOrDirectory) {
      try UnixSocket.connect(to: directory + "/nobody")
    }
  }

  @Test func aProcessStartTimeBecomesADate() throws {
    let stat = try String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
    // Field 22, counted after the command name's closing parenthesis (field 2).
    let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(
      separator: " ")
    let ticks = try #require(UInt64(fields[19]))
    let started = KernelClock.date(ofTicksSinceBoot: ticks)
    let now = Date().timeIntervalSince1970
    #expect(started <= now + 1 && started > now - 24 * 3600)
    #expect(KernelClock.ticksSinceBoot() >= ticks)
  }
}
