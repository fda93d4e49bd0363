// SPDX-License-Identifier: MIT

import KeychainDBus
import KeychainDaemonCore
import SecretServiceProtocol

/// `org.freedesktop.Secret.Session`: only its owner may close it.
struct SessionInterface: DBusInterface {
  let core: DaemonCore
  let id: String

  static let table = InterfaceTable<SessionInterface>(SecretService.Interfaces.session) { table in
    table.on(SecretService.SessionMethods.close, close)
  }

  func close(_ request: MethodRequest) async throws {
    try core.sessions.close(id, caller: request.caller)
  }
}

/// `org.freedesktop.Secret.Prompt`. `Prompt()` returns at once; the dialog runs afterwards and
/// `Completed` follows it, carrying the typed result (`ao` for unlocking, `o` for creating).
/// `Dismiss()` closes a running dialog, and the prompt completes dismissed.
struct PromptInterface: DBusInterface {
  let core: DaemonCore
  let id: String

  static let table = InterfaceTable<PromptInterface>(SecretService.Interfaces.prompt) { table in
    table.on(SecretService.PromptMethods.prompt, prompt)
    table.on(SecretService.PromptMethods.dismiss, dismiss)
  }

  func dismiss(_ request: MethodRequest) async throws {
    let (path, connection) = (SecretPath.prompt(id).objectPath, request.connection)
    let action = try await core.prompts.dismiss(id, caller: request.caller)
    request.afterReply {
      try? await connection.emit(
        SecretService.PromptSignals.completed, from: path, true, action.emptyResult)
    }
  }

  /// `windowID` is ignored: the dialog is pinentry's.
  func prompt(_ request: MethodRequest, windowID: String) async throws {
    let path = SecretPath.prompt(id).objectPath
    let connection = request.connection
    let (core, id) = (core, id)
    let action = try await core.prompts.start(id, caller: request.caller)
    // Started after the reply: a client may subscribe to Completed only once Prompt returned.
    request.afterReply {
      let task = Task {
        let outcome = await core.prompter.run(action)
        await core.publish(outcome.events, on: connection)
        // A dismissed or abandoned prompt has already gone, and Dismiss sent its Completed.
        guard await core.prompts.finish(id) else { return }
        try? await connection.emit(
          SecretService.PromptSignals.completed, from: path, outcome.dismissed, outcome.result)
      }
      await core.prompts.attach(task, to: id)
    }
  }
}
