// SPDX-License-Identifier: MIT
//
// The access dialog: "APP wants to read N passwords from the keyring". Three pinentry buttons:
// OK is "Allow once" (the default, so Enter stores nothing; pinentry-qt alone makes Cancel its
// default whatever it is told), the third button (SETNOTOK) is "Always allow", Cancel is "Deny".
// GNOME's system prompt has two buttons and a check box instead (SystemPromptDialog). Strings the application chose (item labels) are quoted, cut
// short and cleaned of control and direction-changing characters, so that a label cannot pose
// as part of keychaind's own sentence.

/// What the user answered.
public enum AccessChoice: Sendable, Equatable {
  case allowOnce, allowAlways, deny
}

/// What the access dialog says.
public struct AccessQuestion: Sendable {
  /// The application as the user would recognise it.
  public var app: String
  /// How it was identified, in a sentence ("It is identified by its path /usr/bin/foo.").
  public var identification: String
  /// The labels of the items it asks for.
  public var labels: [String]
  /// Whether "Always allow" is offered (not for an application that cannot be recognised
  /// again).
  public var canRemember: Bool
  /// Whether a grant exists for other content of the program (it changed since).
  public var changed: Bool
  /// Whether the application is a tool run in one terminal or login, for which "Always allow"
  /// lasts as long as that session ("Allow in this terminal").
  public var forSession: Bool
  /// The command that allows it for good, which a dialog with no "Always allow" shows instead.
  public var allowCommand: String?

  public init(
    app: String, identification: String, labels: [String], canRemember: Bool, changed: Bool,
    forSession: Bool = false, allowCommand: String? = nil
  ) {
    self.app = app
    self.identification = identification
    self.labels = labels
    self.canRemember = canRemember
    self.changed = changed
    self.forSession = forSession
    self.allowCommand = allowCommand
  }

  /// The label of the button that remembers the answer.
  var rememberLabel: String { forSession ? "Allow in this terminal" : "Always allow" }

  /// The label of the check box that remembers the answer, where a dialog has one.
  public var rememberChoice: String {
    forSession ? "Allow it in this terminal until the terminal closes" : "Always allow this program"
  }

  /// How many labels are listed before "and N more".
  static let shownLabels = 5
  /// How long a listed label may be.
  static let labelLength = 60

  /// The dialog's description.
  public var description: String {
    let count = labels.count
    let what = count == 1 ? "a password" : "\(count) passwords"
    var shown = labels.prefix(Self.shownLabels).map { "“\(Self.clean($0))”" }
      .joined(separator: ", ")
    if count > Self.shownLabels { shown += " and \(count - Self.shownLabels) more" }
    var text = "“\(Self.clean(app))” wants to read \(what) it did not store: \(shown)."
    text += "\n\n\(identification)"
    if changed { text += " It has changed since you allowed it." }
    if !canRemember {
      text += " It can be allowed this once only."
    } else if forSession {
      text += " Allowed in this terminal, it may read them until the terminal or login ends."
    }
    return text
  }

  /// The dialog's title, heading and description; `ok` is the button that allows.
  public func texts(ok: String) -> PromptTexts {
    PromptTexts(title: "Keyring access", message: "Allow access?", description: description, ok: ok)
  }

  /// `text` without control or bidirectional-formatting characters, cut to `labelLength`.
  static func clean(_ text: String) -> String {
    let kept = text.unicodeScalars.filter { scalar in
      let bidi =
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        || scalar.value == 0x200E || scalar.value == 0x200F
      return !bidi && !scalar.properties.generalCategory.isControl
    }
    let cleaned = String(String.UnicodeScalarView(kept))
    return cleaned.count > labelLength ? cleaned.prefix(labelLength - 1) + "…" : cleaned
  }
}

extension Unicode.GeneralCategory {
  fileprivate var isControl: Bool { self == .control || self == .format }
}

extension PasswordDialog {
  /// Asks whether an application may read items it did not store.
  public func askAccess(_ question: AccessQuestion) throws(PinentryError) -> AccessChoice {
    var texts = question.texts(ok: "Allow once")
    let remembers = question.canRemember && showsThirdButton
    if question.canRemember, !showsThirdButton, !question.forSession,
      let command = question.allowCommand
    {
      texts.description += "\n\nThis dialog cannot remember your answer. To allow it for good: "
      texts.description += command
    }
    try pinentry.command("SETTITLE", texts.title)
    try pinentry.command("SETPROMPT", texts.message)
    try pinentry.command("SETDESC", texts.description)
    try pinentry.command("SETOK", texts.ok)
    if remembers { try pinentry.command("SETNOTOK", question.rememberLabel) }
    try pinentry.command("SETCANCEL", "Deny")
    do {
      return try pinentry.confirm() ? .allowOnce : (remembers ? .allowAlways : .deny)
    } catch .cancelled {
      return .deny
    }
  }
}

/// A change to the keyrings themselves that `protect` asks about: a program making another
/// keyring the default (where every application stores next), creating a keyring with a
/// password it chose, or deleting one that holds other programs' items.
public struct ChangeQuestion: Sendable, Equatable {
  /// The application as the user would recognise it.
  public var app: String
  /// How it was identified, in a sentence.
  public var identification: String
  /// What it wants to do, completing "… wants to": "make “Work” the default keyring".
  public var change: String
  /// What follows from it, in a sentence.
  public var consequence: String

  public init(app: String, identification: String, change: String, consequence: String) {
    self.app = app
    self.identification = identification
    self.change = change
    self.consequence = consequence
  }

  /// The dialog's description.
  public var description: String {
    "“\(AccessQuestion.clean(app))” wants to \(change). \(consequence)\n\n\(identification)"
  }

  /// The dialog's title, heading, description and the button that allows.
  public var texts: PromptTexts {
    PromptTexts(
      title: "Keyring change", message: "Allow this change?", description: description,
      ok: "Allow")
  }
}

extension PasswordDialog {
  /// Asks whether a program may make a change to the keyrings; true when the user allows it.
  public func askChange(_ question: ChangeQuestion) throws(PinentryError) -> Bool {
    let texts = question.texts
    try pinentry.command("SETTITLE", texts.title)
    try pinentry.command("SETPROMPT", texts.message)
    try pinentry.command("SETDESC", texts.description)
    try pinentry.command("SETOK", texts.ok)
    try pinentry.command("SETCANCEL", "Deny")
    do {
      return try pinentry.confirm()
    } catch .cancelled {
      return false
    }
  }
}
