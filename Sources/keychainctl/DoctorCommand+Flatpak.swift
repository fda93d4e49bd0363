// SPDX-License-Identifier: MIT
//
// keychainctl doctor's Flatpak check: an app that keeps its own keyring
// (`~/.var/app/APP/data/keyrings/default.keyring`, the v1 format) opens it with the 64-byte key
// the secret portal hands it, which the provider keeps as the item `app_id=APP`. After a switch
// from gnome-keyring or oo7 that key must have come over byte for byte, or the app finds its
// keyring unreadable (oo7) or silently empty (libsecret). Each app's file is opened with the key
// the provider holds now; nothing is written.

import Foundation
import KeychainCrypto
import KeychainImport
import SecretServiceClient

extension Doctor {
  func flatpakKeyrings(_ environment: [String: String]) async -> Finding {
    let check = "Flatpak apps' own keyrings"
    let apps = (environment["HOME"] ?? NSHomeDirectory()) + "/.var/app"
    let keyrings = ((try? FileManager.default.contentsOfDirectory(atPath: apps)) ?? []).sorted()
      .map { (app: $0, file: apps + "/" + $0 + "/data/keyrings/default.keyring") }
      .filter { FileManager.default.fileExists(atPath: $0.file) }
    guard !keyrings.isEmpty else {
      return Finding(check: check, level: .ok, detail: "no Flatpak app keeps a keyring of its own")
    }
    guard let client = try? await SecretServiceClient.connect() else {
      return Finding(check: check, level: .warning, detail: "no Secret Service provider to ask")
    }
    var opened: [String] = []
    var problems: [String] = []
    var locked: [String] = []
    for (app, file) in keyrings {
      switch await Self.keyringOpens(file, app: app, client) {
      case .opens: opened.append(app)
      case .locked: locked.append(app)
      case .fails(let why): problems.append("\(app): \(why)")
      }
    }
    if !problems.isEmpty {
      return Finding(
        check: check, level: .problem, detail: problems.joined(separator: "; "),
        advice:
          "import the keyring that held the app's key (keychainctl import oo7, or gnome-keyring) before the app stores anything new"
      )
    }
    if !locked.isEmpty {
      return Finding(
        check: check, level: .warning,
        detail: "the keys of \(locked.joined(separator: ", ")) are in a locked collection",
        advice: "unlock it (keychainctl unlock) and ask again")
    }
    return Finding(
      check: check, level: .ok,
      detail: "\(opened.count) open with the portal's key: \(opened.joined(separator: ", "))")
  }

  enum KeyringCheck {
    case opens, locked
    case fails(String)
  }

  /// Whether the app's keyring opens with a key the provider keeps for it.
  static func keyringOpens(_ file: String, app: String, _ client: SecretServiceClient) async
    -> KeyringCheck
  {
    guard let found = try? await client.search(["app_id": app]) else {
      return .fails("the provider cannot be searched")
    }
    guard !found.unlocked.isEmpty else {
      return found.locked.isEmpty
        ? .fails("the provider holds no key for it: the app would find its keyring unreadable")
        : .locked
    }
    do {
      let bytes = try KeyringDirectory.readFile(file, name: app).bytes
      let keyring = try V1Keyring(parsing: bytes, file: file)
      guard keyring.itemCount > 0 else { return .opens }
      for item in found.unlocked {
        let (key, _) = try await client.secretAndContentType(of: item)
        if (try? keyring.open(password: key)) != nil { return .opens }
      }
      return .fails("the key the provider holds does not open it")
    } catch {
      return .fails("\(error)")
    }
  }
}
