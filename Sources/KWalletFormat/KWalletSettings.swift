// SPDX-License-Identifier: MIT
//
// The wallet names a KF5 client computes from `kwalletrc` ($XDG_CONFIG_HOME/kwalletrc, an INI
// file) without asking the daemon: `[Wallet] Default Wallet` (the network wallet, `kdewallet`
// unless set), and, when `Use One Wallet` is false, `Local Wallet` (`localwallet`). keychaind
// reads the same keys so that the names it answers and resolves are the ones clients use.

import Foundation

/// The wallet names kwalletrc gives.
public struct KWalletSettings: Sendable, Equatable {
  /// The wallet most programs store in (KWallet::Wallet::NetworkWallet()).
  public var networkWallet = KWallet.defaultWalletName
  /// The wallet for local secrets (KWallet::Wallet::LocalWallet()).
  public var localWallet = KWallet.defaultWalletName

  /// The defaults: both names `kdewallet`.
  public init() {}

  /// The names the user's kwalletrc gives (the defaults when there is none).
  public init(environment: [String: String]) {
    self.init(file: Self.path(environment))
  }

  /// The names the kwalletrc at `path` gives (the defaults when it cannot be read).
  public init(file path: String) {
    let data = FileManager.default.contents(atPath: path) ?? Data()
    self.init(kwalletrc: String(decoding: data, as: UTF8.self))
  }

  /// Where kwalletrc is: `$XDG_CONFIG_HOME/kwalletrc`, usually `~/.config/kwalletrc`.
  public static func path(_ environment: [String: String]) -> String {
    (environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config") + "/kwalletrc"
  }

  /// The names `kwalletrc`'s text gives; keys it does not set keep their defaults.
  public init(kwalletrc text: String) {
    let values = Self.sections(of: text)["Wallet"] ?? [:]
    if let name = values["Default Wallet"], !name.isEmpty { networkWallet = name }
    let oneWallet = values["Use One Wallet"].map { $0.lowercased() != "false" } ?? true
    localWallet =
      oneWallet
      ? networkWallet
      : values["Local Wallet"].flatMap { $0.isEmpty ? nil : $0 } ?? KWallet.defaultLocalWalletName
  }

  /// An INI file's keys by section (`[Wallet]`, `[KSecretD]`, …); a repeated key keeps its
  /// last value.
  public static func sections(of text: String) -> [String: [String: String]] {
    var sections: [String: [String: String]] = [:]
    var section = ""
    for rawLine in text.split(whereSeparator: \.isNewline) {
      let line = rawLine.trimmingCharacters(in: .whitespaces)
      if line.hasPrefix("[") && line.hasSuffix("]") {
        section = String(line.dropFirst().dropLast())
      } else if let equals = line.firstIndex(of: "="), !line.hasPrefix("#") {
        let key = line[..<equals].trimmingCharacters(in: .whitespaces)
        sections[section, default: [:]][key] =
          line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
      }
    }
    return sections
  }

  /// Whether `wallet` is one of the names a client means the default wallet by.
  public func isDefault(_ wallet: String) -> Bool {
    wallet == networkWallet || wallet == localWallet
  }
}
