// SPDX-License-Identifier: MIT
//
// Which objects exist, and where. A service is built from subtrees mounted at paths (zbus's
// `ObjectServer::at`): the Secret Service's tree at /org/freedesktop/secrets, the portal's one
// object at /org/freedesktop/portal/desktop, KWallet's at /modules/kwalletd5. `Mounts` routes a
// path to the deepest subtree at or above it, and lists the parents introspection walks down
// from `/`, so no subtree knows where the others are.

/// Which objects exist under a subtree, and what they implement. Paths are absolute. Both
/// run on the caller's executor (`nonisolated(nonsending)`): every call asks, and a tree that
/// answers from memory or a quick read then costs no thread hop.
public protocol ObjectTree: Sendable {
  /// The interfaces of the object at `path`, or nil when there is no object there.
  nonisolated(nonsending) func interfaces(at path: ObjectPath) async throws
    -> [any DBusInterface]?
  /// The names of the nodes directly below `path`, for introspection.
  nonisolated(nonsending) func childNodes(of path: ObjectPath) async throws -> [String]
}

/// Subtrees mounted at paths, served as one tree.
public struct Mounts: ObjectTree {
  private struct Mount {
    let path: ObjectPath
    /// `path` with a trailing slash: what the paths below it start with.
    let prefix: String
    let tree: any ObjectTree
  }
  private var mounts: [Mount] = []

  /// No subtrees yet: no objects.
  public init() {}

  /// Serves `tree` at `path` and below (where no deeper subtree is mounted).
  public mutating func mount(_ tree: any ObjectTree, at path: ObjectPath) {
    precondition(!mounts.contains { $0.path == path }, "two subtrees at \(path)")
    let prefix = path == .root ? "/" : path.rawValue + "/"
    mounts.append(Mount(path: path, prefix: prefix, tree: tree))
    // The deepest first, so that the first match is the one that owns a path.
    mounts.sort { $0.path.rawValue.count > $1.path.rawValue.count }
  }

  /// Serves one object at `path` (and nothing below it), with the interfaces `interfaces` makes.
  public mutating func mount(
    at path: ObjectPath,
    _ interfaces: @escaping @Sendable () async throws -> [any DBusInterface]
  ) {
    mount(SingleObject(path: path, make: interfaces), at: path)
  }

  private func owner(of path: ObjectPath) -> Mount? {
    mounts.first { path == $0.path || path.rawValue.hasPrefix($0.prefix) }
  }

  public nonisolated(nonsending) func interfaces(at path: ObjectPath) async throws
    -> [any DBusInterface]?
  {
    guard let mount = owner(of: path) else { return nil }
    return try await mount.tree.interfaces(at: path)
  }

  public nonisolated(nonsending) func childNodes(of path: ObjectPath) async throws -> [String] {
    var children = try await owner(of: path)?.tree.childNodes(of: path) ?? []
    // The next element of every mount point below `path`: the way down to it.
    let prefix = path == .root ? "/" : path.rawValue + "/"
    var ways: Set<String> = []
    for mount in mounts where mount.path.rawValue.hasPrefix(prefix) {
      let rest = mount.path.rawValue.dropFirst(prefix.count)
      if let first = rest.split(separator: "/").first { ways.insert(String(first)) }
    }
    children += ways.sorted().filter { !children.contains($0) }
    return children
  }
}

/// One object at one path.
private struct SingleObject: ObjectTree {
  let path: ObjectPath
  let make: @Sendable () async throws -> [any DBusInterface]

  nonisolated(nonsending) func interfaces(at path: ObjectPath) async throws -> [any DBusInterface]?
  {
    path == self.path ? try await make() : nil
  }

  nonisolated(nonsending) func childNodes(of path: ObjectPath) async throws -> [String] { [] }
}
