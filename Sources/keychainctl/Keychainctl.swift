// SPDX-License-Identifier: MIT
//
// keychainctl: the keychain from a shell. secret-tool's verbs work on Secret Service attributes
// through the bus; security(1)'s password verbs go through the Keychain library (the bus, or the
// embedded store where there is none); collection verbs show what the provider holds.

import ArgumentParser
import Foundation
import SecretServiceProtocol

/// keychainctl's command line, for the program's entry point (`Sources/KeychainMain`).
public enum KeychainctlProgram {
  /// Parses the arguments and runs the command; exits the process.
  public static func main() async { await Keychainctl.main() }
}

struct Keychainctl: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keychainctl",
    abstract: "Store, find and manage secrets in the keychain.",
    discussion: """
      Exit codes: 0 success; 1 nothing found or the operation failed; 44 no such item and \
      45 duplicate item (the security(1) verbs, as security(1) has them); 64 bad usage; \
      69 no Secret Service provider is reachable.
      """,
    version: Release.version,
    subcommands: [
      Store.self, Lookup.self, Search.self, Clear.self, Lock.self, Unlock.self,
      AddGenericPassword.self, FindGenericPassword.self, DeleteGenericPassword.self,
      AddInternetPassword.self, FindInternetPassword.self, DeleteInternetPassword.self,
      List.self, Create.self, Delete.self, SetDefault.self, Passwd.self, Status.self,
      Check.self, Import.self, Export.self, Doctor.self, PamUnlock.self, LockPolicyCommand.self,
      AccessCommand.self, AuditCommand.self, SlotCommand.self, Exec.self, ShareCommand.self,
    ])
}

/// Exit codes the manual documents.
enum Exit {
  static let failure = ExitCode(1)
  static let itemNotFound = ExitCode(44)
  static let duplicateItem = ExitCode(45)
  static let unavailable = ExitCode(69)
}

/// `name value` pairs given on the command line, as secret-tool takes them.
struct AttributePairs: ParsableArguments {
  @Argument(help: "Attribute names and values, in pairs: name value [name value …].")
  var pairs: [String] = []

  func validate() throws {
    guard pairs.count.isMultiple(of: 2) else {
      throw ValidationError("attributes come in name value pairs")
    }
  }

  var attributes: [String: String] {
    stride(from: 0, to: pairs.count, by: 2).reduce(into: [:]) { $0[pairs[$1]] = pairs[$1 + 1] }
  }
}

/// Writes `text` to standard error with a newline.
func complain(_ text: String) {
  FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Prints `value` as pretty, key-sorted JSON.
func printJSON(_ value: Any) throws {
  let data = try JSONSerialization.data(
    withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
  print(String(decoding: data, as: UTF8.self))
}
