// SPDX-License-Identifier: MIT
//
// keychainctl share: a few items handed to a sandbox, a container or an agent on a private bus
// of their own, instead of the whole session bus. Any libsecret, SecretStorage or keyring
// client works there unchanged with DBUS_SESSION_BUS_ADDRESS set to the share's address.

import ArgumentParser
import Foundation
import KeychainDBus
import SecretServiceClient
import SecretServiceProtocol

struct ShareCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "share",
    abstract: "Share a few items on a private bus, for a sandbox, a container or an agent.",
    discussion: """
      keychainctl share --items QUERY… makes a share of the items the queries match and prints \
      the address of its bus on standard output: a program given that address as \
      DBUS_SESSION_BUS_ADDRESS (or that socket, bound into its sandbox) finds and reads the \
      shared items as it would on the session bus, and sees nothing else of the keyring. Every \
      read through it is audited as share:ID. A share ends when revoked, when its time is up \
      (--ttl, one hour unless told), or when keychaind stops.
      """,
    subcommands: [ShareCreate.self, ShareList.self, ShareRevoke.self],
    defaultSubcommand: ShareCreate.self)
}

struct ShareCreate: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "create",
    abstract: "Make a share and print its bus address (the default subcommand).",
    discussion: """
      A QUERY is attribute=value pairs joined by commas (service=github,user=alice); each must \
      match an item, and locked ones are unlocked through the prompt. The address goes to \
      standard output alone (export DBUS_SESSION_BUS_ADDRESS="$(keychainctl share --items …)"); \
      the share's id, its socket and how to end it go to standard error. Example, a sandbox \
      that sees one token: bwrap … --bind SOCKET /run/keyring-bus --setenv \
      DBUS_SESSION_BUS_ADDRESS unix:path=/run/keyring-bus -- secret-tool lookup service github
      """)

  @Option(
    name: .customLong("items"), parsing: .upToNextOption,
    help: "QUERY…: the items to share (attribute=value pairs joined by commas).")
  var queries: [String] = []
  @Option(help: "How long it lasts: 90s, 30m, 1h, 7d, or never (until revoked).")
  var ttl = "1h"
  @Flag(name: .customLong("read-only"), help: "Its clients may read, never change or store.")
  var readOnly = false
  @Option(help: "What it is for, shown by share list.") var label = ""

  /// `--ttl` in seconds; nil for never.
  static func seconds(_ text: String) throws -> UInt64? {
    if text == "never" { return nil }
    let units: [Character: UInt64] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
    guard let unit = text.last.flatMap({ units[$0] }), let count = UInt64(text.dropLast()),
      count > 0, count <= 3660 * 86400 / unit
    else {
      throw ValidationError(
        "--ttl '\(text)': a number and s, m, h or d (90s, 30m, 1h, 7d, up to ten years), or never")
    }
    return count * unit
  }

  func validate() throws {
    guard !queries.isEmpty else { throw ValidationError("name the items with --items QUERY…") }
    for query in queries { _ = try ItemQuery.parse(query, in: query) }
    _ = try Self.seconds(ttl)
  }

  func run() async throws {
    let lifetime = try Self.seconds(ttl)
    let client = try await connectedClient()
    var items: [ObjectPath] = []
    for query in queries {
      let attributes = try ItemQuery.parse(query, in: query)
      let text = ItemQuery.text(attributes)
      // Locked ones are unlocked through the prompt, which asks as a read would.
      let (unlocked, locked) = try await sayingWhy { try await client.search(attributes) }
      let opened = locked.isEmpty ? [] : try await sayingWhy { try await client.unlock(locked) }
      if opened.count < locked.count {
        complain(
          "keychainctl: \(locked.count - opened.count) item(s) matching \(text) stay locked (the prompt was dismissed), and are not shared"
        )
      }
      let found = unlocked + opened
      guard !found.isEmpty else {
        complain(
          locked.isEmpty
            ? "keychainctl: no item matches \(text): nothing is shared"
            : "keychainctl: nothing matching \(text) was unlocked: nothing is shared")
        throw Exit.failure
      }
      items += found.filter { !items.contains($0) }
    }
    let share = try await sayingWhy {
      try await client.createShare(
        of: items, lifetime: lifetime, readOnly: readOnly, label: label)
    }
    print(share.address)
    let until = lifetime.map { "until \(Date().addingTimeInterval(Double($0)))" } ?? "until revoked"
    complain(
      """
      share \(share.id): \(items.count) item\(items.count == 1 ? "" : "s"), \
      \(readOnly ? "read-only" : "read-write"), \(until)
      socket: \(share.address.dropFirst("unix:path=".count))
      end it: keychainctl share revoke \(share.id)
      """)
  }
}

struct ShareList: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List the live shares.")

  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    let shares = try await sayingWhy { try await connectedClient().shares() }
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      print(String(decoding: try encoder.encode(shares), as: UTF8.self))
      return
    }
    guard !shares.isEmpty else { return print("no shares") }
    for share in shares {
      let until =
        share.expires.map { "until \(Date(timeIntervalSince1970: Double($0)))" }
        ?? "until revoked"
      let label = share.label.isEmpty ? "" : " “\(share.label)”"
      print(
        "\(share.id)\(label): \(share.items.count) item\(share.items.count == 1 ? "" : "s"), \(share.readOnly ? "read-only" : "read-write"), \(until)"
      )
      print("  \(share.address)")
    }
  }
}

struct ShareRevoke: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "revoke",
    abstract: "End a share: its clients are cut off and its socket is removed.")

  @Argument(help: "The share's id (share list shows it).") var id: String

  func run() async throws {
    try await sayingWhy { try await connectedClient().revokeShare(id) }
  }
}
