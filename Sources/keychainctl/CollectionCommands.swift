// SPDX-License-Identifier: MIT
//
// What the provider holds: its collections, and a status line for people and scripts.

import ArgumentParser
import Foundation
import SecretServiceClient

struct List: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the collections: path, lock state, items, label.")
  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    let client = try await connectedClient()
    let collections = try await client.collections()
    let defaultPath = try await client.readAlias("default")
    if json {
      try printJSON(
        collections.map {
          [
            "path": $0.path.rawValue, "label": $0.label, "locked": $0.isLocked,
            "items": $0.itemCount, "default": $0.path == defaultPath,
          ]
        })
      return
    }
    for collection in collections {
      let mark = collection.path == defaultPath ? "*" : " "
      let state = collection.isLocked ? "locked  " : "unlocked"
      print(
        "\(mark) \(collection.path.rawValue)\t\(state)\t\(collection.itemCount) items\t\(collection.label)"
      )
    }
  }
}

struct Status: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show the provider, and each collection's lock state and item count.")
  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    let client = try await connectedClient()
    let (name, pid) = try await client.provider()
    let program = pid.flatMap {
      try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8)
        .trimmingCharacters(in: .whitespacesAndNewlines)
    }
    let collections = try await client.collections()
    let items = collections.map(\.itemCount).reduce(0, +)
    if json {
      try printJSON([
        "provider": [
          "name": name?.rawValue ?? "", "pid": pid.map { Int($0) } ?? 0, "program": program ?? "",
        ],
        "collections": collections.map {
          ["path": $0.path.rawValue, "locked": $0.isLocked, "items": $0.itemCount]
        },
        "items": items,
      ])
      return
    }
    print(
      "provider: \(program ?? "unknown") (pid \(pid.map(String.init) ?? "?"), \(name?.rawValue ?? "?"))"
    )
    print("collections: \(collections.count), \(collections.filter(\.isLocked).count) locked")
    print("items: \(items)")
  }
}
