// SPDX-License-Identifier: MIT
//
// keychainctl doctor's PAM check: which login programs' stacks would unlock the keyring. Login
// unlocks it only where pam_gnome_keyring.so (or pam_exec.so running `keychainctl pam-unlock`)
// is in the `auth` stage, which sees the password typed, of a program a person logs in
// through (a display manager, the console, SSH); `session` starts keychaind if it is not
// running. Stacks are read as PAM reads them, following `@include`, `include` and `substack`.
// Debian's libpam-gnome-keyring adds itself to `common-password` only (for `passwd`), and to the
// display managers' stacks when one is installed: a machine with none has no login that
// unlocks.

import Foundation

extension Doctor {
  /// The programs a person logs in through, by their PAM file.
  static let loginServices = [
    "gdm-password", "lightdm", "sddm", "login", "sshd", "xdm", "lxdm", "slim", "greetd", "ly",
    "cosmic-greeter", "kde",
  ]

  /// A stack's modules, by stage (`auth`, `session`, …), after its includes.
  static func stack(_ file: String, in directory: String, depth: Int = 0)
    -> [String: [String]]
  {
    guard depth < 8,
      let text = try? String(contentsOfFile: directory + "/" + file, encoding: .utf8)
    else { return [:] }
    var stages: [String: [String]] = [:]
    for line in text.split(separator: "\n") {
      let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
      guard let first = words.first, !first.hasPrefix("#") else { continue }
      if first == "@include", words.count > 1 {
        for (stage, modules) in stack(words[1], in: directory, depth: depth + 1) {
          stages[stage, default: []] += modules
        }
        continue
      }
      guard words.count > 2 else { continue }
      let stage = first.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
      if words[1] == "include" || words[1] == "substack" {
        stages[stage, default: []] += stack(words[2], in: directory, depth: depth + 1)[stage] ?? []
        continue
      }
      // The control may be bracketed ([success=1 default=ignore]): the module follows it.
      guard let module = words.dropFirst().first(where: { $0.contains(".so") }) else { continue }
      let unlocks =
        module.hasSuffix("pam_gnome_keyring.so")
        || (module.hasSuffix("pam_exec.so") && words.contains { $0.contains("pam-unlock") })
      stages[stage, default: []].append(unlocks ? "unlock" : module)
    }
    return stages
  }

  func pam() -> Finding {
    let check = "PAM"
    let present = Self.loginServices.filter {
      FileManager.default.fileExists(atPath: pamDirectory + "/" + $0)
    }
    var unlocking: [String] = []
    var authOnly: [String] = []
    var missing: [String] = []
    for service in present {
      let stages = Self.stack(service, in: pamDirectory)
      let auth = stages["auth"]?.contains("unlock") == true
      let session = stages["session"]?.contains("unlock") == true
      if auth && session {
        unlocking.append(service)
      } else if auth {
        authOnly.append(service)
      } else {
        missing.append(service)
      }
    }
    let passwordOnly =
      Self.stack("common-password", in: pamDirectory)["password"]?.contains("unlock") == true
    guard !unlocking.isEmpty || !authOnly.isEmpty else {
      let detail =
        present.isEmpty
        ? "\(pamDirectory) has no login program's stack (\(Self.loginServices.prefix(4).joined(separator: ", ")), …)"
        : "no login program's auth stage loads pam_gnome_keyring.so or keychainctl pam-unlock (\(present.joined(separator: ", ")))"
      return Finding(
        check: check, level: .problem,
        detail: detail
          + (passwordOnly ? "; common-password does, which only re-keys it on passwd" : ""),
        advice:
          "add `auth optional pam_gnome_keyring.so` and `session optional pam_gnome_keyring.so auto_start` to your display manager's file in \(pamDirectory) (installing libpam-gnome-keyring with the display manager does), or the pam_exec line of keychainctl(1)"
      )
    }
    var detail = "login unlocks it through " + (unlocking + authOnly).joined(separator: ", ")
    if !authOnly.isEmpty {
      detail +=
        " (auth only in \(authOnly.joined(separator: ", ")): keychaind must be running or socket-activated)"
    }
    if !missing.isEmpty { detail += "; not through " + missing.joined(separator: ", ") }
    return Finding(check: check, level: .ok, detail: detail)
  }
}
