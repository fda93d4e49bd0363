// SPDX-License-Identifier: MIT
//
// Which application a caller is, as keychaind remembers it: a key built from kernel facts only
// (the sandbox's app id, the executable's path, the script an interpreter runs), never from
// anything the caller says about itself. KWallet dropped its per-application lists in 2026
// because they trusted a name the caller sent; keys here are what grants and item ownership
// are stored under, so nothing the caller chooses may go into one.

/// One application, as keychaind identifies it (see `IdentityResolver`).
public struct AppIdentity: Sendable, Hashable, Codable {
  /// How the application was identified, strongest first.
  public enum Kind: String, Sendable, Codable, CaseIterable {
    /// xdg-desktop-portal, by the bus name it owns; it vouches for sandboxed apps' ids.
    case portal
    /// A Flatpak app, by the `.flatpak-info` its sandbox holds.
    case flatpak
    /// A Snap, by its cgroup.
    case snap
    /// An executable that only root can change (it and every directory above it), by path.
    case system
    /// An executable the user can change, by path and content hash.
    case user
    /// An interpreter running a script file, by both paths and the script's hash. The script
    /// path comes from the command line, which the process can rewrite: a weak identity.
    case script
    /// A generic tool (`secret-tool`, the keyring CLI) together with whatever ran it.
    case via
    /// A systemd unit getting a credential through keychaind's credentials socket, by the unit
    /// name in the address systemd's own connection comes from (`unit:NAME`).
    case unit
    /// Whatever calls through a scoped share's private bus (`keychainctl share`), by the
    /// share's id (`share:ID`): the share is the grant, for its items only.
    case share
    /// Nothing could be established (the process hid or left, its pid was reused, its
    /// executable was deleted). Never remembered: a grant to "unknown" would be a grant to all.
    case unknown
  }

  /// How it was identified.
  public var kind: Kind
  /// The stable key grants and ownership are stored under, e.g. `exe:/usr/bin/evolution`,
  /// `flatpak:org.gnome.Evolution`, `via:exe:/usr/bin/secret-tool@exe:/usr/bin/mbsync`.
  /// Empty for `unknown`.
  public var key: String
  /// `sha256:HEX` of the file for `user` and `script` kinds: a grant made for one content does
  /// not hold for another.
  public var pin: String?
  /// What the user would recognise: "sync.py (python3)", "secret-tool, run by mbsync".
  public var display: String
  /// Whether the pid was checked to be the process that connected (see `IdentityResolver`).
  public var verified: Bool

  public init(kind: Kind, key: String, pin: String? = nil, display: String, verified: Bool) {
    self.kind = kind
    self.key = key
    self.pin = pin
    self.display = display
    self.verified = verified
  }

  /// An application nothing could be learnt about; `why` is shown in dialogs and the log.
  public static func unknown(pid: UInt32?, why: String) -> AppIdentity {
    let who = pid.map { "an unidentified program (PID \($0))" } ?? "an unidentified program"
    return AppIdentity(kind: .unknown, key: "", display: "\(who): \(why)", verified: false)
  }

  /// The name a dialog calls it by; for an unknown one, without why (which the dialog gives in
  /// full in a sentence of its own, `unknownReason`).
  public var name: String {
    kind == .unknown ? String(display.prefix { $0 != ":" }) : display
  }

  /// Why an unknown one could not be identified, as `unknown(pid:why:)` was told.
  public var unknownReason: String? {
    guard kind == .unknown, let colon = display.firstIndex(of: ":") else { return nil }
    return String(display[display.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
  }

  /// Whether a decision about this application may be remembered ("Always allow", grants,
  /// ownership of what it creates).
  public var isRememberable: Bool { kind != .unknown && !key.isEmpty }

  /// Whether it is a front end run in one terminal tab, multiplexer pane or login (its key ends
  /// in `@session:…`): it owns what it stores there for as long as that session lasts, and no
  /// grant is kept for it, since the next session is another. Anything can open a terminal of
  /// its own; nothing else can type into the person's.
  public var isSessionBound: Bool { key.contains("@session:") }

  /// The file whose content a key's program is pinned to (`pin`): a script's, a user-writable
  /// executable's, a front end's; nil for a key with none (a sandbox, a root-owned program).
  /// `isSystemFile` says which paths the user cannot change.
  public static func pinnedFile(ofKey key: String, isSystemFile: (String) -> Bool) -> String? {
    var key = Substring(key)
    if key.hasPrefix("via:") {
      // The front end's key ends where the requester's begins.
      let requesters = ["exe:", "script:", "session:", "flatpak:", "snap:", "interactive", "unit:"]
      key = key.dropFirst(4)
      var cut = key.endIndex
      var search = key.startIndex
      while let at = key[search...].firstIndex(of: "@") {
        if requesters.contains(where: key[key.index(after: at)...].hasPrefix) {
          cut = at
          break
        }
        search = key.index(after: at)
      }
      key = key[..<cut]
    }
    if key.hasPrefix("script:") {
      // script:INTERPRETER:SCRIPT; the interpreter's path holds no colon on any distribution.
      let rest = key.dropFirst(7)
      return rest.firstIndex(of: ":").map { String(rest[rest.index(after: $0)...]) }
    }
    if key.hasPrefix("exe:"), !key.contains(" -m ") {
      let path = String(key.dropFirst(4))
      return isSystemFile(path) ? nil : path
    }
    return nil
  }

  /// Whether "Always allow" may be stored for it.
  public var mayHoldGrants: Bool { isRememberable && !isSessionBound }

  /// How sure the identity is, for the audit log and the dialog.
  public var strength: String {
    switch kind {
    case .portal, .flatpak, .snap: "sandbox"
    case .system: "path"
    case .user: "path and content"
    case .script: "command line"
    case .via: "front end and parent"
    case .unit: "systemd's connection"
    case .share: "the share's own bus"
    case .unknown: "none"
    }
  }
}
