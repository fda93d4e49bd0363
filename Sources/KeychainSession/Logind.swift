// SPDX-License-Identifier: MIT
//
// The parts of systemd-logind's API (org.freedesktop.login1, on the system bus) and of the
// desktops' screensavers (on the session bus) that keychaind follows, declared with their types
// like every interface keychaind serves (see `Takes`, `Emits`, `Property`).

import KeychainDBus

/// systemd-logind's manager, sessions and users.
enum Logind {
  static let name: BusName = "org.freedesktop.login1"
  static let managerPath: ObjectPath = "/org/freedesktop/login1"
  static let manager: InterfaceName = "org.freedesktop.login1.Manager"
  static let session: InterfaceName = "org.freedesktop.login1.Session"
  static let user: InterfaceName = "org.freedesktop.login1.User"

  static let getSessionByPID = Takes<UInt32>.Returns<ObjectPath>(
    manager, "GetSessionByPID", ["pid"], ["object_path"], errors: [])
  static let getSession = Takes<String>.Returns<ObjectPath>(
    manager, "GetSession", ["session_id"], ["object_path"], errors: [])
  static let getUser = Takes<UInt32>.Returns<ObjectPath>(
    manager, "GetUser", ["uid"], ["object_path"], errors: [])
  /// A descriptor that holds the inhibitor until it is closed.
  static let inhibit = Takes<String, String, String, String>.Returns<PassedDescriptor>(
    manager, "Inhibit", ["what", "who", "why", "mode"], ["fd"], errors: [])

  static let prepareForSleep = Emits<Bool>(manager, "PrepareForSleep", ["start"])
  static let sessionRemoved = Emits<String, ObjectPath>(
    manager, "SessionRemoved", ["session_id", "object_path"])
  // (`< >` with its space: `<>` does not parse, and swift-format would write it.)
  // swift-format-ignore
  /// The session is to be locked (`loginctl lock-session`).
  static let lock = Emits< >(session, "Lock")

  /// The user's graphical session, `("", "/")` if none.
  static let display = Property<SessionReference>(user, "Display")
  /// Every session of the user.
  static let sessions = Property<[SessionReference]>(user, "Sessions")
}

/// A logind session as a user's properties name it: `(so)`, its id and path.
struct SessionReference: DBusRepresentable, Sendable {
  let id: String
  let path: ObjectPath

  static var dbusType: DBusType { .structure([.string, .objectPath]) }
  var dbusValue: DBusValue { .structure([.string(id), .objectPath(path)]) }
  init(dbusValue: DBusValue) throws(DBusError) {
    guard case .structure(let fields) = dbusValue, fields.count == 2,
      let id = fields[0].string, let path = fields[1].objectPath
    else { throw .typeMismatch(expected: Self.dbusType, got: dbusValue) }
    self.id = id
    self.path = path
  }
}

/// The desktops' screensavers on the session bus.
enum ScreenSaver {
  /// GNOME Shell's and KDE's (and others') lock screens say when they come and go.
  static let activeChanged: [Emits<Bool>] = [
    Emits<Bool>("org.gnome.ScreenSaver", "ActiveChanged", ["new_value"]),
    Emits<Bool>("org.freedesktop.ScreenSaver", "ActiveChanged", ["new_value"]),
  ]
}
