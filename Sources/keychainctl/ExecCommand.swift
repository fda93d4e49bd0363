// SPDX-License-Identifier: MIT
//
// keychainctl exec: one command run with the secrets it needs, and nothing else of the
// keyring: in its environment, or in files that exist only in memory. keychainctl's own
// environment never holds them, nothing is written to disk, and the command's exit status is
// keychainctl's.

import ArgumentParser
import Foundation
import KeychainCrypto
import KeychainSystem
import SecretServiceClient
import SystemPackage

struct Exec: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run a command with secrets in its environment or in memory-only files.",
    discussion: """
      --env NAME=QUERY sets the variable NAME to the secret of the first item QUERY matches. \
      --file NAME=QUERY puts that secret in a file that exists only in memory, sealed \
      read-only, and sets NAME to its path (/dev/fd/N). A QUERY is attribute=value pairs \
      joined by commas (service=github,user=alice); locked items are unlocked through the \
      prompt. Nothing is written to disk, and keychainctl's own environment never holds a \
      secret. keychaind's audit log names the reads as the command's, run by keychainctl. The exit status is the command's (128 + N when signal N ended it; 127 when it \
      could not be started). Example: `keychainctl exec --env GH_TOKEN=service=github -- gh \
      repo list`.
      """)

  @Option(name: .customLong("env"), help: "NAME=QUERY: a secret in an environment variable.")
  var environment: [String] = []
  @Option(name: .customLong("file"), help: "NAME=QUERY: a secret in a memory-only file.")
  var files: [String] = []
  @Argument(parsing: .postTerminator, help: "The command and its arguments, after --.")
  var command: [String] = []

  /// NAME and the attributes of a NAME=QUERY.
  static func parse(_ spec: String) throws -> (name: String, attributes: [String: String]) {
    let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, !parts[0].isEmpty,
      parts[0].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
    else { throw ValidationError("'\(spec)': expected NAME=QUERY, NAME a variable name") }
    return (parts[0], try ItemQuery.parse(parts[1], in: spec))
  }

  func validate() throws {
    guard !command.isEmpty else { throw ValidationError("name the command to run after --") }
    let names = try (environment + files).map { try Self.parse($0).name }
    guard Set(names).count == names.count else {
      throw ValidationError("each NAME may be given once")
    }
  }

  /// The file `name` runs as execvp would find it: a path as it is (absolute), a bare name on
  /// PATH; nil when no executable file is there.
  static func executable(_ name: String) -> String? {
    let current = FileManager.default.currentDirectoryPath
    if name.contains("/") { return name.hasPrefix("/") ? name : current + "/" + name }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    return path.split(separator: ":", omittingEmptySubsequences: false)
      .map { ($0.isEmpty ? current : String($0)) + "/" + name }
      .first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  func run() async throws {
    guard let file = Self.executable(command[0]) else {
      complain("keychainctl: cannot run \(command[0]): no such command on PATH")
      throw ExitCode(127)
    }
    let client = try await connectedClient()
    // The audit log then names the reads as the command's. A provider without it (or one that
    // cannot tell this is keychainctl) audits them as keychainctl's: nothing else changes.
    try? await client.runsCommand(file)
    var secrets: [(name: String, value: SecureBytes)] = []
    for spec in environment {
      let (name, attributes) = try Self.parse(spec)
      secrets.append((name, try await secret(client, attributes, for: name)))
    }
    var memoryFiles: [(name: String, file: FileDescriptor)] = []
    defer { for (_, file) in memoryFiles { try? file.close() } }
    for spec in files {
      let (name, attributes) = try Self.parse(spec)
      let value = try await secret(client, attributes, for: name)
      do {
        memoryFiles.append((name, try SecretChild.memoryFile(named: name, contents: value)))
      } catch {
        complain("keychainctl: cannot make a memory file for \(name): \(error)")
        throw Exit.failure
      }
    }
    let given = Set(secrets.map(\.name) + memoryFiles.map(\.name))
    let inherited = ProcessInfo.processInfo.environment.filter { !given.contains($0.key) }
      .map { "\($0.key)=\($0.value)" }
    let paths = memoryFiles.map { "\($0.name)=/dev/fd/\($0.file.rawValue)" }
    let started = SecretChild.spawn(
      file, command, environment: inherited + paths, secrets: secrets)
    secrets.removeAll()
    guard case .success(let pid) = started else {
      if case .failure(let error) = started {
        complain("keychainctl: cannot run \(command[0]): \(error)")
      }
      throw ExitCode(127)
    }
    for (_, file) in memoryFiles { try? file.close() }
    memoryFiles.removeAll()
    let status = SecretChild.wait(for: pid)
    if status != 0 { throw ExitCode(status) }
  }

  /// The secret of the first item `attributes` match, unlocking it through the prompt if it
  /// must; none is exit status 1, before the command runs.
  private func secret(
    _ client: SecretServiceClient, _ attributes: [String: String], for name: String
  ) async throws -> SecureBytes {
    guard let item = try await matches(client, attributes, unlock: true).first else {
      complain("keychainctl: no item matches \(ItemQuery.text(attributes)) (for \(name))")
      throw Exit.failure
    }
    return try await client.secret(of: item)
  }
}
