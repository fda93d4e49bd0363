// SPDX-License-Identifier: MIT
//
// Dialogs one at a time (N applications asking at login get one dialog after another, as with
// gnome-keyring's unlock queue), each closable from another task (Dismiss, the caller gone).

import Foundation
import Logging
import Synchronization

/// The dialog of one prompt, reachable from the task's cancellation handler.
public final class DialogHandle: Sendable {
  private let state = Mutex<(cancelled: Bool, cancel: (@Sendable () -> Void)?)>((false, nil))

  /// What `open` takes for GNOME's system prompt instead of a pinentry program.
  public static let systemPrompt = "gcr"

  public init() {}

  /// Starts the dialog: for `systemPrompt`, the one `systemDialog` opens (a pinentry when it
  /// cannot start), else `program`'s; throws `cannotStart` when prompting is off (nil). One
  /// cancelled before it opened is cancelled at once.
  /// - Parameter systemDialog: opens a dialog in GNOME's system prompt (KeychainSystemPrompt,
  ///   over D-Bus, which this module does not speak).
  public func open(
    _ program: String?, systemDialog: () throws(PinentryError) -> any KeyringDialog,
    logger: Logger
  ) throws -> any KeyringDialog {
    guard var program else { throw PinentryError.cannotStart("prompting is turned off") }
    if program == Self.systemPrompt {
      do {
        return attach(try systemDialog())
      } catch .cannotStart(let why) {
        logger.notice("GNOME's system prompt does not answer (\(why)); asking through pinentry")
        program = "pinentry"
      }
    }
    let dialog = try PasswordDialog(
      program: program, environment: ProcessInfo.processInfo.environment)
    return attach(dialog)
  }

  private func attach(_ dialog: any KeyringDialog) -> any KeyringDialog {
    let cancelled = state.withLock { state in
      state.cancel = { dialog.cancel() }
      return state.cancelled
    }
    if cancelled { dialog.cancel() }
    return dialog
  }

  /// Closes the dialog, now or as soon as it opens.
  public func cancel() {
    let cancel = state.withLock { state in
      state.cancelled = true
      return state.cancel
    }
    cancel?()
  }
}

/// Prompts take turns: the next starts when the last has finished.
public actor PromptQueue {
  private var busy = false
  private var waiting: [CheckedContinuation<Void, Never>] = []

  public init() {}

  /// Returns when it is this prompt's turn.
  public func acquire() async {
    guard busy else {
      busy = true
      return
    }
    await withCheckedContinuation { waiting.append($0) }
  }

  /// Ends this prompt's turn: the next one starts.
  public func release() {
    if waiting.isEmpty {
      busy = false
    } else {
      waiting.removeFirst().resume()
    }
  }
}
