// SPDX-License-Identifier: MIT
//
// keychainctl doctor: why the keyring is, or is not, unlocked at login. Each check reads the
// system as it is (the bus, the control socket, the PAM files, the autostart entries) and
// says what to change; nothing is changed.

import ArgumentParser
import Foundation
import KeychainDBus
import KeychainStore
import KeyringControl
import SecretServiceClient

struct Doctor: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Say why the keyring is or is not unlocked at login, and what to change.",
    discussion: """
      Checks, changing nothing: which program owns org.freedesktop.secrets; whether the control \
      socket pam_gnome_keyring.so talks to ($XDG_RUNTIME_DIR/keyring/control) answers, and \
      which program behind it; which login programs' PAM stacks (display managers, login, \
      sshd; includes followed) load pam_gnome_keyring.so in their auth and session stages; \
      whether the login collection is unlocked now, and whether it was unlocked at this boot \
      and by which route; whether the default keyring is the one login unlocks; the access \
      control mode, items no program owns and programs refused this week; whether \
      gnome-keyring's secrets component is still set to start with this desktop; which program serves KDE programs on org.kde.kwalletd5 and kwalletd6; \
      whether each Flatpak app's own keyring (~/.var/app/APP/data/keyrings/default.keyring) \
      opens with the key the secret portal now hands it. Exit codes: 0 nothing stands in the \
      way; 1 \
      something does (each problem says what to change).
      """)

  @Option(name: .customLong("pam-dir"), help: "Where the PAM files are.")
  var pamDirectory = "/etc/pam.d"

  @Flag(help: "Print JSON.") var json = false

  /// One finding: ok, a warning (works, but not as intended) or a problem, and what to do.
  struct Finding {
    enum Level: String { case ok, warning, problem }
    var check: String
    var level: Level
    var detail: String
    var advice: String?
  }

  func run() async throws {
    let environment = ProcessInfo.processInfo.environment
    var findings = [await provider()]
    findings.append(controlSocket(environment))
    findings.append(pam())
    findings.append(await loginState())
    findings.append(await loginRoute())
    findings.append(await defaultKeyring())
    findings.append(await keySlots())
    findings.append(await accessControl())
    findings.append(autostart(environment))
    findings.append(await kde(environment))
    findings.append(await flatpakKeyrings(environment))
    if json {
      try printJSON([
        "findings": findings.map { finding -> [String: Any] in
          var object: [String: Any] = [
            "check": finding.check, "level": finding.level.rawValue, "detail": finding.detail,
          ]
          if let advice = finding.advice { object["advice"] = advice }
          return object
        }
      ])
    } else {
      for finding in findings {
        print("\(finding.level.rawValue): \(finding.check): \(finding.detail)")
        if let advice = finding.advice { print("  → \(advice)") }
      }
    }
    if findings.contains(where: { $0.level == .problem }) { throw Exit.failure }
  }

  /// The program at `pid`, from /proc.
  static func program(_ pid: UInt32?) -> String? {
    guard let pid,
      let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    else { return nil }
    return path
  }

  private func provider() async -> Finding {
    let check = "Secret Service provider"
    guard let client = try? await SecretServiceClient.connect(),
      let (name, pid) = try? await client.provider(), name != nil
    else {
      return Finding(
        check: check, level: .warning, detail: "nothing owns org.freedesktop.secrets now",
        advice:
          "it starts at the first client call if `make install` put its activation file in place")
    }
    let program = Self.program(pid) ?? "pid \(pid.map(String.init) ?? "?")"
    if program.hasSuffix("/keychaind") {
      return Finding(check: check, level: .ok, detail: "keychaind (\(program), pid \(pid ?? 0))")
    }
    return Finding(
      check: check, level: .problem, detail: "\(program) (pid \(pid ?? 0)) owns it, not keychaind",
      advice:
        "stop it from starting (README: Replacing gnome-keyring) and run `keychaind --replace`")
  }

  private func controlSocket(_ environment: [String: String]) -> Finding {
    let check = "login unlock socket"
    guard let path = ControlClient.socketPath(environment) else {
      return Finding(
        check: check, level: .problem, detail: "no XDG_RUNTIME_DIR in this session",
        advice: "log in through a PAM session with pam_systemd, which sets it")
    }
    do {
      let pid = try ControlClient.probe(path)
      let program = Self.program(UInt32(pid)) ?? "pid \(pid)"
      if program.hasSuffix("/keychaind") || program.hasSuffix("/systemd") {
        return Finding(
          check: check, level: .ok,
          detail:
            "\(path) answers (\(program.hasSuffix("/systemd") ? "systemd, for keychaind-control.socket" : "keychaind"))"
        )
      }
      return Finding(
        check: check, level: .problem, detail: "\(path) is answered by \(program)",
        advice: "mask gnome-keyring-daemon.socket and enable keychaind-control.socket")
    } catch {
      return Finding(
        check: check, level: .problem, detail: "\(path) does not answer (\(error))",
        advice:
          "`systemctl --user enable --now keychaind-control.socket`, or keep keychaind running")
    }
  }

  private func loginState() async -> Finding {
    let check = "login collection"
    guard let client = try? await SecretServiceClient.connect(),
      let login = try? await client.collections().first(where: {
        $0.path.rawValue.hasSuffix("/login")
      })
    else {
      return Finding(
        check: check, level: .warning, detail: "there is no login collection yet",
        advice: "the first login through PAM (or `keychaind --unlock`) creates it")
    }
    return login.isLocked
      ? Finding(
        check: check, level: .warning, detail: "locked",
        advice:
          "it opens at the next login or screen unlock through PAM, or with `keychainctl unlock`")
      : Finding(check: check, level: .ok, detail: "unlocked")
  }

  /// How login was last unlocked (keychaind records it), and whether that was at this boot.
  private func loginRoute() async -> Finding {
    let check = "login unlock at this boot"
    guard let client = try? await SecretServiceClient.connect(),
      let last = try? await client.lastLoginUnlock()
    else {
      return Finding(
        check: check, level: .warning, detail: "keychaind has not recorded an unlock of login",
        advice: "log out and in again; if it stays locked, fix what the other checks say")
    }
    let when = last.time.formatted(date: .abbreviated, time: .shortened)
    guard last.bootID == UnlockRecord.currentBootID else {
      return Finding(
        check: check, level: .warning,
        detail: "not since this boot (last: \(when), by \(last.route))",
        advice: "log out and in again through a PAM stack with pam_gnome_keyring or pam-unlock")
    }
    guard UnlockRecord.Route.isLogin(last.route) else {
      return Finding(
        check: check, level: .warning, detail: "at \(when) by \(last.route), not by the login",
        advice:
          "login did not unlock it: the PAM check above says what to add")
    }
    return Finding(check: check, level: .ok, detail: "at \(when) by \(last.route)")
  }

  private func autostart(_ environment: [String: String]) -> Finding {
    let check = "gnome-keyring at session start"
    let entry = "gnome-keyring-secrets.desktop"
    let home = environment["HOME"] ?? NSHomeDirectory()
    let userDirectory =
      (environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config")
      + "/autostart"
    let user = userDirectory + "/" + entry
    let system = (environment["XDG_CONFIG_DIRS"] ?? "/etc/xdg").split(separator: ":").map {
      $0 + "/autostart/" + entry
    }.first { FileManager.default.fileExists(atPath: $0) }
    let hidden =
      (try? String(contentsOfFile: user, encoding: .utf8))?.contains("Hidden=true") == true
    guard let system, !hidden else {
      return Finding(check: check, level: .ok, detail: "its secrets component does not autostart")
    }
    // The entry names the desktops it starts in (OnlyShowIn=GNOME;Unity;MATE;): KDE's is not.
    let desktops = (environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").map(String.init)
    let text = (try? String(contentsOfFile: system, encoding: .utf8)) ?? ""
    if !desktops.isEmpty, !Self.startsIn(desktops, entry: text) {
      return Finding(
        check: check, level: .ok,
        detail: "\(system) does not start in \(desktops.joined(separator: ":"))")
    }
    return Finding(
      check: check, level: .warning, detail: "\(system) starts gnome-keyring's secrets component",
      advice: "mkdir -p \(userDirectory) && printf '[Desktop Entry]\\nHidden=true\\n' > \(user)")
  }

  /// Whether a desktop entry starts in `desktops` (XDG_CURRENT_DESKTOP's), by its OnlyShowIn
  /// and NotShowIn keys.
  static func startsIn(_ desktops: [String], entry: String) -> Bool {
    func list(_ key: String) -> [String]? {
      entry.split(separator: "\n").first { $0.hasPrefix(key + "=") }.map {
        $0.dropFirst(key.count + 1).split(separator: ";").map(String.init)
      }
    }
    if let only = list("OnlyShowIn"), !only.contains(where: desktops.contains) { return false }
    if let not = list("NotShowIn"), not.contains(where: desktops.contains) { return false }
    return true
  }
}
