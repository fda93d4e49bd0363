// SPDX-License-Identifier: MIT
//
// A share's bus: what its clients may call, and the object server that answers them. The
// tree and the view hide what the share does not hold; this filter keeps to the methods a
// client of the Secret Service needs to find, read and (when the share may write) store its
// items. Anything else, however harmless it looks (Lock, SetAlias, CreateCollection, the
// gnome-keyring and keychaind interfaces), is refused before it runs: a share is handed to
// programs that are not trusted with the rest of the keyring.

import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import SecretServiceProtocol

/// Puts the share on each call, and lets through only what the share allows (see the top).
struct ShareFilter: CallFilter {
  let scope: ShareScope

  /// `interface.member` a share's client may call, and those it may call when it may write.
  static let reading: Set<String> = [
    "org.freedesktop.Secret.Service.OpenSession", "org.freedesktop.Secret.Service.SearchItems",
    "org.freedesktop.Secret.Service.GetSecrets", "org.freedesktop.Secret.Service.Unlock",
    "org.freedesktop.Secret.Service.ReadAlias", "org.freedesktop.Secret.Collection.SearchItems",
    "org.freedesktop.Secret.Item.GetSecret", "org.freedesktop.Secret.Session.Close",
    "org.freedesktop.Secret.Prompt.Prompt", "org.freedesktop.Secret.Prompt.Dismiss",
    "org.freedesktop.DBus.Properties.Get", "org.freedesktop.DBus.Properties.GetAll",
    "org.freedesktop.DBus.Introspectable.Introspect", "org.freedesktop.DBus.Peer.Ping",
    "org.freedesktop.DBus.Peer.GetMachineId",
  ]
  static let writing: Set<String> = [
    "org.freedesktop.Secret.Collection.CreateItem", "org.freedesktop.Secret.Item.SetSecret",
    "org.freedesktop.Secret.Item.Delete",
  ]

  nonisolated(nonsending) func filter(_ request: MethodRequest, next: CallFilterNext)
    async throws -> [DBusValue]
  {
    let name = "\(request.message.interface?.rawValue ?? "").\(request.member.rawValue)"
    let allowed =
      Self.reading.contains(name)
      || (!scope.readOnly && (Self.writing.contains(name) || isItemPropertySet(request)))
    guard allowed else {
      let isWrite = Self.writing.contains(name) || isItemPropertySet(request)
      throw
        (scope.readOnly && isWrite
        ? AccessRefusal.shareIsReadOnly : .notThroughShare(method: name)).error
    }
    request.context.modify(scope) { _ in }
    let results = try await next(request)
    // What its clients store joins the share; what they delete leaves it.
    for event in request.context.value([StoreEvent].self) ?? [] {
      switch event {
      case .itemCreated(let item): scope.admit(item)
      case .itemDeleted(let item, _): scope.remove(item)
      default: break
      }
    }
    return results
  }

  /// A Set of an item's Label or Attributes.
  private func isItemPropertySet(_ request: MethodRequest) -> Bool {
    guard request.message.interface == .properties, request.member == "Set",
      case .item? = SecretPath(request.path),
      let interface = try? request.argument(0, as: String.self)
    else { return false }
    return interface == SecretService.itemInterface.rawValue
  }
}

extension DaemonCore {
  /// The object server of a share's bus: the Secret Service over the share's items alone, its
  /// callers kept apart from the session bus's (`callerPrefix`). What its calls change is
  /// announced on `main`, the session bus, where the rest of the desktop hears it.
  package func shareServer(_ scope: ShareScope, announcingOn main: any MessageTransport)
    -> ObjectServer
  {
    ObjectServer(
      SecretTree(core: self, serviceExtras: [], scope: scope),
      filters: [
        gate, ShareFilter(scope: scope), AccessFilter(core: self),
        UseTracking(core: self), MemoryReleaseFilter(), EventFilter(core: self, on: main),
      ],
      logger: logger, maximumByteArray: StoreLimits.maxSecretBytes + 16,
      callerPrefix: Self.callerPrefix(of: scope))
  }

  /// What a share's callers' unique names are kept under.
  package static func callerPrefix(of scope: ShareScope) -> String { "share-\(scope.id)/" }

  /// A share's caller left its bus (`peer` with the share's prefix): its sessions, prompts
  /// and remembered application go.
  package func shareCallerLeft(_ peer: BusName) async {
    await dropPeer(peer)
    access.peerLeft(peer)
  }
}
