// SPDX-License-Identifier: MIT
//
// keychainctl access learn: moving from `audit` to `protect` without a day of dialogs. A
// learning period collects the reads `protect` would have asked about; applying it turns them
// into grants and `protect` on, in one step the user confirms with the keyring password.

import ArgumentParser
import Foundation
import KeychainCrypto
import SecretServiceClient

extension AccessCommand {
  struct Learn: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Turn the reads the audit log saw into grants, before access-control = protect.",
      discussion: """
        In audit mode keychaind marks each read that protect would have asked about. \
        `learn --for 7d` starts a learning period: use your programs as usual meanwhile. \
        `learn --status` shows the period and the grants its reads call for. `learn --apply` \
        makes them and turns access-control = protect on, in keychaind.conf too, so that \
        afterwards a dialog comes up only when a program reads what it was not seen reading. \
        `learn --discard` ends the period and grants nothing. Plain `learn` grants what the \
        period (or, with none, the whole log) saw and leaves the mode alone. Programs that \
        could not be identified are never learnt, and a log whose chain is broken is not \
        learnt from. Granting needs the password of the collections involved.
        """)
    @Option(
      name: .customLong("for"),
      help: ArgumentHelp(
        "Start a learning period this long: 90s, 30m, 12h, 7d.", valueName: "length"))
    var length: String?
    @Flag(help: "Show the learning period and the grants its reads call for.") var status = false
    @Flag(help: "Make those grants, end the period, and turn protect on.") var apply = false
    @Option(
      help: ArgumentHelp(
        "With --apply: grant nothing to this application (as `access list` names it, or a path).",
        valueName: "app"))
    var except: [String] = []
    @Flag(help: "End the learning period without granting anything.") var discard = false
    @Flag(help: "Only list the grants that would be made.") var dryRun = false
    @Flag(help: .passwordStdin) var passwordStdin = false

    func validate() throws {
      guard [length != nil, status, apply, discard, dryRun].count(where: { $0 }) <= 1 else {
        throw ValidationError("choose one of --for, --status, --apply, --discard and --dry-run")
      }
      guard except.isEmpty || apply else { throw ValidationError("--except goes with --apply") }
      if let length, Self.seconds(length) == nil {
        throw ValidationError("--for takes a length such as 90s, 30m, 12h or 7d")
      }
    }

    /// Seconds in a length such as `90s`, `30m`, `12h` or `7d` (a bare number is seconds).
    static func seconds(_ length: String) -> UInt64? {
      let units: [Character: UInt64] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
      let (digits, unit) =
        length.last.flatMap { units[$0] }.map { (length.dropLast(), $0) } ?? (Substring(length), 1)
      guard let count = UInt64(digits), count > 0 else { return nil }
      let (product, overflow) = count.multipliedReportingOverflow(by: unit)
      return overflow ? nil : product
    }

    func run() async throws {
      let client = try await connectedClient()
      if let length {
        let (_, end) = try await client.startLearning(seconds: Self.seconds(length)!)
        print("learning until \(end.formatted(.iso8601)): use your programs as usual, then run")
        print("  keychainctl access learn --apply")
      } else if status {
        try await showStatus(client)
      } else if discard {
        let ended = try await client.discardLearning()
        print(ended ? "learning period ended; nothing was granted" : "no learning period")
      } else if apply {
        let (made, savedIn) = try await apply(client)
        print("\(made.count) grant(s) made")
        print("access-control = protect" + (savedIn.isEmpty ? "" : " (written to \(savedIn))"))
      } else {
        let password = dryRun ? SecureBytes(copying: []) : try accessPassword(passwordStdin)
        let grants = try await client.learnAccess(password: password, dryRun: dryRun)
        for grant in grants { print(grant) }
        print("\(grants.count) grant(s) \(dryRun ? "would be made" : "made")")
      }
    }

    /// `--apply`: the grants it will make are shown first, and the password is asked only
    /// if there are any (turning protect on narrows access, which needs none).
    private func apply(_ client: SecretServiceClient) async throws -> ([String], String) {
      let all = try await client.learnAccess(password: SecureBytes(copying: []), dryRun: true)
      // As keychaind reads --except: a key, an executable's path, or a Flatpak app id.
      let keys = except.flatMap { [$0, "exe:" + $0, "flatpak:" + $0] }
      let left = all.filter { grant in keys.contains { grant.hasPrefix($0 + " ") } }
      let grants = all.filter { !left.contains($0) }
      Self.printByApplication(grants)
      if !left.isEmpty {
        print("left out: \(left.count) read(s) of \(except.joined(separator: ", "))")
      }
      let password = grants.isEmpty ? SecureBytes(copying: []) : try accessPassword(passwordStdin)
      return try await client.applyLearning(password: password, except: except)
    }

    private func showStatus(_ client: SecretServiceClient) async throws {
      print("mode: \(try await client.accessListing().mode)")
      if let (start, end) = try await client.learningPeriod() {
        let state = end < Date() ? "over: run `keychainctl access learn --apply`" : "running"
        print(
          "learning since \(start.formatted(.iso8601)) until \(end.formatted(.iso8601)) (\(state))")
      } else {
        print("no learning period: every read the audit log holds counts")
      }
      Self.printByApplication(
        try await client.learnAccess(password: SecureBytes(copying: []), dryRun: true))
    }

    /// "APP: N item(s)" per application, from `APP ITEM_PATH` lines.
    static func printByApplication(_ grants: [String]) {
      guard !grants.isEmpty else { return print("no read calls for a grant") }
      print("grants the reads call for:")
      var counts: [(String, Int)] = []
      for grant in grants {
        let app = String(grant[..<(grant.lastIndex(of: " ") ?? grant.endIndex)])
        if let index = counts.firstIndex(where: { $0.0 == app }) {
          counts[index].1 += 1
        } else {
          counts.append((app, 1))
        }
      }
      for (app, count) in counts { print("  \(app): \(count) item(s)") }
    }
  }
}
