// SPDX-License-Identifier: MIT
//
// keychainctl doctor's checks of the keyring itself: whether login unlock opens the keyring
// applications store in (the default one), the slots that open it, and what access control
// does (its mode, items no program owns, programs refused this week).

import Foundation
import KeychainAccess
import SecretServiceClient

extension Doctor {
  /// Login unlock opens `login`; a default keyring by another name ("Default keyring", made by
  /// a first store with no login keyring yet) opens at login only if its password is the
  /// login password, else its dialog comes back at every login.
  func defaultKeyring() async -> Finding {
    let check = "default keyring"
    guard let client = try? await SecretServiceClient.connect(),
      let path = try? await client.readAlias("default")
    else {
      return Finding(
        check: check, level: .warning, detail: "there is none yet",
        advice: "the first login through PAM (or the first program that stores) makes one")
    }
    guard !path.rawValue.hasSuffix("/login") else {
      return Finding(check: check, level: .ok, detail: "login, which login unlock opens")
    }
    let label =
      (try? await client.collections())?.first { $0.path == path }?.label
      ?? path.rawValue
    return Finding(
      check: check, level: .warning,
      detail:
        "“\(label)”, not login: login unlock opens it only if its password is your login password",
      advice:
        "keychainctl passwd \"\(label)\" (set it to your login password), or keychainctl set-default login"
    )
  }

  /// The slots that open the default keyring. A recovery key works on any machine (it is
  /// typed); without one, a lost password loses the keyring, which is worth saying. Whether a
  /// TPM or FIDO2 slot works here, `keychainctl slot test` says (it needs the device).
  func keySlots() async -> Finding {
    let check = "key slots"
    guard let client = try? await SecretServiceClient.connect(),
      let path = try? await client.readAlias("default"),
      let slots = try? await client.keySlots(of: path)
    else {
      return Finding(check: check, level: .ok, detail: "no default keyring to open yet")
    }
    let kinds = [
      "recovery": "recovery key", "tpm2": "this machine's TPM", "fido2": "FIDO2 key",
      "tpm2+fido2": "the TPM and a FIDO2 key together",
    ]
    let named = slots.map { slot in
      slot.kind == "password"
        ? "password"
        : "\(kinds[slot.kind] ?? slot.kind) (slot \(slot.id))"
          + (slot.label.isEmpty ? "" : " “\(slot.label)”")
    }
    let name = path.rawValue.split(separator: "/").last.map(String.init) ?? path.rawValue
    var detail = "\(name) opens with: " + named.joined(separator: ", ")
    var level = Finding.Level.ok
    // What a device slot needs on this machine: the device, and the library keychaind loads.
    if slots.contains(where: { $0.kind.hasPrefix("tpm2") }) {
      if !FileManager.default.fileExists(atPath: "/dev/tpmrm0") {
        detail += "; there is no /dev/tpmrm0, so a TPM slot cannot open it here"
        level = .warning
      } else if !Self.libraryInstalled("libtss2-esys.so.0") {
        detail += "; tpm2-tss (libtss2-esys) is not installed, so a TPM slot cannot open it"
        level = .warning
      }
    }
    if slots.contains(where: { $0.kind.hasSuffix("fido2") }),
      !Self.libraryInstalled("libfido2.so.1")
    {
      detail += "; libfido2 is not installed, so a FIDO2 slot cannot open it"
      level = .warning
    }
    guard slots.contains(where: { $0.kind == "recovery" }) else {
      return Finding(
        check: check, level: level, detail: detail + " (a lost password loses it)",
        advice: "keychainctl slot add recovery makes a recovery key to keep on paper")
    }
    return Finding(check: check, level: level, detail: detail)
  }

  /// Whether the shared library `name` is where the dynamic loader looks on Debian and its kin.
  static func libraryInstalled(_ name: String) -> Bool {
    var system = utsname()
    uname(&system)
    let machine = withUnsafeBytes(of: &system.machine) {
      String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
    }
    return ["/usr/lib/\(machine)-linux-gnu", "/usr/lib64", "/usr/lib"].contains {
      FileManager.default.fileExists(atPath: "\($0)/\(name)")
    }
  }

  /// The access-control mode (in force, asked for, kept), items no program owns, and the
  /// programs refused in the last seven days.
  func accessControl() async -> Finding {
    let check = "access control"
    guard let client = try? await SecretServiceClient.connect(),
      let (mode, configured, kept) = try? await client.accessMode()
    else {
      return Finding(check: check, level: .warning, detail: "keychaind does not answer")
    }
    var detail = mode
    if configured != mode {
      detail += " (keychaind.conf asks for \(configured); the keyring keeps \(kept))"
    }
    if let listing = try? await client.accessListing() {
      let unowned = listing.unowned.values.reduce(0, +)
      if unowned > 0 { detail += "; \(unowned) item(s) owned by no program" }
    }
    let week = Date().addingTimeInterval(-7 * 86400)
    let directory = AuditLog.defaultDirectory(ProcessInfo.processInfo.environment)
    let refused = Set(
      AuditLog.files(in: directory).flatMap { $0.text.split(separator: "\n") }
        .compactMap(AuditChain.record)
        .filter { $0.isRefusal && $0.date >= week && $0.app.key != "keychaind" }
        .map { $0.app.key.isEmpty ? "unidentified programs" : $0.app.display })
    if !refused.isEmpty {
      detail += "; refused this week: " + refused.sorted().joined(separator: ", ")
    }
    if configured != mode {
      return Finding(
        check: check, level: .warning, detail: detail,
        advice: "keychainctl access mode \(configured) --password-stdin lowers it, on purpose")
    }
    return Finding(check: check, level: .ok, detail: detail)
  }
}
