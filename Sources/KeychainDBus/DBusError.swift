// SPDX-License-Identifier: MIT

/// An error as D-Bus carries it: a name that clients match on, and a human-readable message.
///
/// Messages are shown to users and written to logs, so they must never contain a secret,
/// a password or an attribute value. `quoted(_:)` shortens untrusted text for them.
public struct DBusError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The error name clients match on, such as `org.freedesktop.DBus.Error.InvalidArgs`.
  public let name: ErrorName
  /// A short explanation for people; never holds secret material.
  public let message: String

  /// Makes an error with `name` and `message`.
  public init(_ name: ErrorName, _ message: String) {
    self.name = name
    self.message = message
  }

  public var description: String { "\(name): \(message)" }

  /// Untrusted text made safe for a message: at most 64 characters, control characters escaped.
  /// `text` in the curly quotes GDBus puts around names in its messages (“name”), with control
  /// characters escaped, at most 64 characters.
  public static func curlyQuoted(_ text: String) -> String {
    "“" + quoted(text).dropFirst().dropLast() + "”"
  }

  /// No object at `path`: GDBus's and gnome-keyring's UnknownMethod, which libsecret ignores
  /// when it dismisses a prompt that has already gone.
  public static func noObject(_ path: ObjectPath) -> DBusError {
    DBusError(.unknownMethod, "Object does not exist at path \(curlyQuoted(path.rawValue))")
  }

  /// A property the interface does not have (GDBus's wording).
  public static func noSuchProperty(_ name: String) -> DBusError {
    DBusError(.invalidArgs, "No such property \(curlyQuoted(name))")
  }

  /// A property that cannot be set (GDBus's wording).
  public static func notWritable(_ name: String) -> DBusError {
    DBusError(.invalidArgs, "Property \(curlyQuoted(name)) is not writable")
  }

  public static func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars.prefix(64) {
      out +=
        scalar.properties.generalCategory == .control
        ? scalar.escaped(asASCII: true) : String(scalar)
    }
    return out + (text.unicodeScalars.count > 64 ? "…\"" : "\"")
  }
}

extension ErrorName {
  /// A generic failure; also what any unexpected Swift error becomes at the D-Bus boundary.
  public static let failed: ErrorName = "org.freedesktop.DBus.Error.Failed"

  /// What any method may answer, so no declaration lists them: arguments its signature takes
  /// but it refuses (`InvalidArgs`), an object gone meanwhile (`UnknownMethod`, as GDBus names
  /// it), and an internal failure (`Failed`, its details in the log only).
  public static let everyMethod: Set<ErrorName> = [.invalidArgs, .unknownMethod, .failed]
  /// The arguments have the wrong types or values.
  public static let invalidArgs: ErrorName = "org.freedesktop.DBus.Error.InvalidArgs"
  /// The object has no such method (for the interface given, if any).
  public static let unknownMethod: ErrorName = "org.freedesktop.DBus.Error.UnknownMethod"
  /// No object at this path.
  public static let unknownObject: ErrorName = "org.freedesktop.DBus.Error.UnknownObject"
  /// The object has no such interface.
  public static let unknownInterface: ErrorName = "org.freedesktop.DBus.Error.UnknownInterface"
  /// The interface has no such property.
  public static let unknownProperty: ErrorName = "org.freedesktop.DBus.Error.UnknownProperty"
  /// The property cannot be written.
  public static let propertyReadOnly: ErrorName = "org.freedesktop.DBus.Error.PropertyReadOnly"
  /// The request is understood but not supported; the Secret Service uses it for algorithms.
  public static let notSupported: ErrorName = "org.freedesktop.DBus.Error.NotSupported"
  /// No reply came within the timeout.
  public static let noReply: ErrorName = "org.freedesktop.DBus.Error.NoReply"
  /// A timeout expired.
  public static let timeout: ErrorName = "org.freedesktop.DBus.Error.Timeout"
  /// The connection is closed.
  public static let disconnected: ErrorName = "org.freedesktop.DBus.Error.Disconnected"
  /// The caller may not do this.
  public static let accessDenied: ErrorName = "org.freedesktop.DBus.Error.AccessDenied"
  /// A size or count limit was exceeded.
  public static let limitsExceeded: ErrorName = "org.freedesktop.DBus.Error.LimitsExceeded"
  /// Out of memory.
  public static let noMemory: ErrorName = "org.freedesktop.DBus.Error.NoMemory"
  /// Reading or writing a file failed (a full disk, among others).
  public static let ioError: ErrorName = "org.freedesktop.DBus.Error.IOError"
  /// The named service does not exist on the bus.
  public static let serviceUnknown: ErrorName = "org.freedesktop.DBus.Error.ServiceUnknown"
  /// The named connection does not exist on the bus.
  public static let nameHasNoOwner: ErrorName = "org.freedesktop.DBus.Error.NameHasNoOwner"
}

/// An error that knows how it is answered on the bus. The object server renders it at its one
/// boundary, so that a handler lets its layer's errors (a store's, say) go up as they are.
public protocol DBusErrorConvertible: Error {
  /// The name and text the caller gets.
  var dbusError: DBusError { get }
}
