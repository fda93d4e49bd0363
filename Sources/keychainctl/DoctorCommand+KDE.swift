// SPDX-License-Identifier: MIT
//
// keychainctl doctor's KDE check: which arrangement serves KDE programs, which reach a keyring
// only through org.kde.kwalletd5 (KF5) or org.kde.kwalletd6 (KF6). keychaind serving both is
// the intended one; KDE's own bridge (kwalletd6 from KF 6.14) set to pass calls to the Secret
// Service works too; a storing kwalletd keeps KDE's secrets out of keychaind.

import Foundation
import KWalletProtocol
import KeychainDBus

extension Doctor {
  func kde(_ environment: [String: String]) async -> Finding {
    let check = "KDE programs (KWallet)"
    let settings = Self.kwalletrc(environment)
    if settings["Wallet"]?["Enabled"]?.lowercased() == "false" {
      return Finding(
        check: check, level: .problem,
        detail: "kwalletrc says [Wallet] Enabled=false: KDE programs then refuse every wallet",
        advice: "remove that line from \(KWalletSettings.path(environment))")
    }
    guard let connection = try? await Connection.sessionBus() else {
      return Finding(check: check, level: .warning, detail: "no session bus to ask")
    }
    defer { Task { await connection.close() } }
    var owners: [(name: BusName, program: String?)] = []
    for (name, _) in KWallet.services {
      guard (try? await connection.nameOwner(name)) ?? nil != nil else {
        owners.append((name, nil))
        continue
      }
      let pid = try? await connection.credentials(of: name).pid
      owners.append((name, Self.program(pid) ?? "pid \(pid.map(String.init) ?? "?")"))
    }
    let served = owners.filter { $0.program?.hasSuffix("/keychaind") == true }.map(\.name)
    let others = owners.filter { $0.program != nil && $0.program?.hasSuffix("/keychaind") != true }
    if let other = others.first, let program = other.program {
      // KF ≥ 6.14's kwalletd6 is a bridge; set to the Secret Service, it stores in keychaind.
      if program.hasSuffix("/kwalletd6"), settings["KSecretD"]?["Enabled"]?.lowercased() == "false"
      {
        return Finding(
          check: check, level: .ok,
          detail: "KDE's bridge (\(program)) passes \(other.name) to the Secret Service: keychaind")
      }
      return Finding(
        check: check, level: .problem,
        detail: "\(program) owns \(other.name): KDE programs store in KWallet's own files",
        advice:
          "run `keychaind --replace` (it has kwalletd write its wallets and quit); README's KDE section says how to keep kwalletd from starting"
      )
    }
    if !served.isEmpty {
      return Finding(
        check: check, level: .ok,
        detail: "keychaind serves KWallet on \(served.map(\.rawValue).joined(separator: ", "))")
    }
    return Finding(
      check: check, level: .warning, detail: "nothing owns org.kde.kwalletd5 now",
      advice:
        "keychaind takes it when it starts (unless keychaind.conf says kwallet = false); its activation file lets a KDE program's call start it"
    )
  }

  /// kwalletrc's sections and keys.
  static func kwalletrc(_ environment: [String: String]) -> [String: [String: String]] {
    guard let text = try? String(contentsOfFile: KWalletSettings.path(environment), encoding: .utf8)
    else { return [:] }
    return KWalletSettings.sections(of: text)
  }
}
