// SPDX-License-Identifier: MIT
//
// keychaind's questions in GNOME's system prompt (see `SystemPrompt`): the dialogs GNOME Shell
// (or gcr-prompter) shows for gnome-keyring, with gnome-keyring's texts. A password prompt has
// its own confirmation field for a new password; the access dialog is a confirm prompt whose
// check box says "Always allow this program", so the choice pinentry-gnome3 cannot show (it
// ignores a third button) is there. The prompt runner calls it from a blocking thread: each
// question waits there for its answer.

import Dispatch
import KeychainCrypto
import KeychainDBus
import KeychainPrompt
import Synchronization

/// A dialog in GNOME's system prompt.
public final class SystemPromptDialog: KeyringDialog {
  private let session: SystemPrompt

  private init(session: SystemPrompt) { self.session = session }

  /// Begins a session with the system prompter on the session bus; `cannotStart` when none
  /// answers (no GNOME Shell, no gcr-prompter).
  public static func open() throws(PinentryError) -> SystemPromptDialog {
    SystemPromptDialog(
      session: try waiting { () async throws(PinentryError) in try await SystemPrompt.begin() })
  }

  /// Ends the question showing, from another thread.
  public func cancel() { session.cancel() }

  public func close() { _ = try? Self.waiting { await self.session.close() } }

  private func ask(_ type: String, _ properties: [String: DBusValue]) throws(PinentryError)
    -> SystemPrompt.Answer
  {
    try Self.waiting { () async throws(PinentryError) in
      try await self.session.perform(type, properties)
    }
  }

  /// A prompt's texts as the system prompt's properties.
  private static func properties(
    _ texts: PromptTexts, warning: String? = nil, cancel: String = "Cancel"
  ) -> [String: DBusValue] {
    [
      "title": .string(texts.title), "message": .string(texts.message),
      "description": .string(texts.description), "warning": .string(warning ?? ""),
      "continue-label": .string(texts.ok), "cancel-label": .string(cancel),
      "choice-label": .string(""), "password-new": .boolean(false),
    ]
  }

  public func askExisting(
    _ texts: PromptTexts, wrongPassword: String, accept: (SecureBytes) throws -> Bool
  ) throws -> Bool {
    for attempt in 1...PasswordDialog.attempts {
      let answer = try ask(
        "password", Self.properties(texts, warning: attempt > 1 ? wrongPassword : nil))
      guard answer.accepted else { throw PinentryError.cancelled }
      if try accept(answer.password ?? SecureBytes(copying: [])) { return true }
    }
    return false
  }

  public func askNew(_ texts: PromptTexts) throws -> SecureBytes {
    while true {
      var properties = Self.properties(texts)
      properties["password-new"] = .boolean(true)
      let answer = try ask("password", properties)
      guard answer.accepted else { throw PinentryError.cancelled }
      let password = answer.password ?? SecureBytes(copying: [])
      if password.count > 0 { return password }
      let blank = PromptTexts.unencrypted(title: texts.title)
      if try ask("confirm", Self.properties(blank)).accepted { return password }
    }
  }

  public func askAccess(_ question: AccessQuestion) throws -> AccessChoice {
    var properties = Self.properties(question.texts(ok: "Allow"), cancel: "Deny")
    properties["choice-label"] = .string(question.canRemember ? question.rememberChoice : "")
    properties["choice-chosen"] = .boolean(false)
    let answer = try ask("confirm", properties)
    guard answer.accepted else { return .deny }
    let remembered = answer.properties["choice-chosen"] == .boolean(true)
    return remembered && question.canRemember ? .allowAlways : .allowOnce
  }

  public func askChange(_ question: ChangeQuestion) throws -> Bool {
    try ask("confirm", Self.properties(question.texts, cancel: "Deny")).accepted
  }

  /// Runs `body` and waits here, on a blocking thread, for what it returns.
  private static func waiting<T: Sendable>(
    _ body: @escaping @Sendable () async throws(PinentryError) -> T
  ) throws(PinentryError) -> T {
    let result = Mutex<Result<T, PinentryError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
      let outcome: Result<T, PinentryError>
      do throws(PinentryError) {
        outcome = .success(try await body())
      } catch {
        outcome = .failure(error)
      }
      result.withLock { $0 = outcome }
      done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
  }
}
