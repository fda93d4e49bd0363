// SPDX-License-Identifier: MIT
//
// Dialogs one at a time (N applications asking at login get one dialog after another, as with
// gnome-keyring's unlock queue), each closable from another task (Dismiss, the caller gone).

import Foundation
import Logging
import Synchronization

/// The dialog of one prompt, reachable from the task's cancellation handler.
public final class DialogHandle: Sendable {
  private let state = Mutex<(cancelled: Bool, pinentry: Pinentry?)>((false, nil))

  public init() {}

  /// Starts `program`'s dialog, or throws `cannotStart` when prompting is off (nil); one
  /// cancelled before it opened is cancelled at once.
  public func open(_ program: String?, logger: Logger) throws -> PasswordDialog {
    guard let program else { throw PinentryError.cannotStart("prompting is turned off") }
    let dialog = try PasswordDialog(
      program: program, environment: ProcessInfo.processInfo.environment)
    let cancelled = state.withLock { state in
      state.pinentry = dialog.pinentry
      return state.cancelled
    }
    if cancelled { dialog.pinentry.cancel() }
    return dialog
  }

  /// Closes the dialog, now or as soon as it opens.
  public func cancel() {
    let pinentry = state.withLock { state in
      state.cancelled = true
      return state.pinentry
    }
    pinentry?.cancel()
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
