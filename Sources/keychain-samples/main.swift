// SPDX-License-Identifier: MIT
//
// Runs the seeds' samples against the backend the environment selects (KEYCHAIN_BACKEND;
// see the Keychain library's documentation) and prints what each one saw, one line per step.
//
//   keychain-samples add USER PASSWORD | find | accounts | update USER PASSWORD | delete
//   keychain-samples keys            (new RSA key, stored by tag, read back, deleted)
//   keychain-samples all             (every step in order, checking each result)

import Foundation
import Keychain

func describe(_ error: Error) -> String {
  if case KeychainError.unhandledError(let status) = error {
    return "OSStatus \(status): " + (SecCopyErrorMessageString(status, nil) ?? "")
  }
  return "\(error)"
}

func run(_ arguments: [String]) throws {
  switch arguments.first {
  case "add" where arguments.count == 3:
    try AddingAPassword.add(Credentials(username: arguments[1], password: arguments[2]))
    print("added \(arguments[1])")
  case "find":
    let credentials = try SearchingForItems.find()
    print("found \(credentials.username) \(credentials.password)")
  case "accounts":
    print("accounts \(try SearchingForItems.accounts().joined(separator: " "))")
  case "update" where arguments.count == 3:
    try UpdatingAndDeleting.update(Credentials(username: arguments[1], password: arguments[2]))
    print("updated \(arguments[1])")
  case "delete":
    try UpdatingAndDeleting.delete()
    print("deleted")
  case "keys":
    try StoringKeys.deleteKey()
    let key = try StoringKeys.newKey()
    let found = try StoringKeys.storeAndRetrieve(key)
    let original = SecKeyCopyExternalRepresentation(key, nil)! as Data
    let retrieved = SecKeyCopyExternalRepresentation(found, nil)! as Data
    print("key \(found) same \(original == retrieved)")
    try StoringKeys.deleteKey()
  case "all":
    try UpdatingAndDeleting.delete()
    for step in [
      ["add", "alice", "s3cret"], ["find"], ["add", "bob", "hunter2"], ["accounts"],
      ["delete"], ["add", "alice", "s3cret"], ["update", "alice", "n3w"], ["find"], ["keys"],
    ] {
      try run(step)
    }
  default:
    print("usage: keychain-samples add USER PASSWORD | find | accounts | update USER PASSWORD")
    print("       | delete | keys | all")
    exit(64)
  }
}

do {
  try run(Array(CommandLine.arguments.dropFirst()))
} catch {
  print("failed: \(describe(error))")
  exit(1)
}
