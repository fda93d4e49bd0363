// SPDX-License-Identifier: MIT
//
// Work around every call, written once (Hummingbird's middleware, NIO's pipeline): holding
// calls while the service starts, noting which collections a call used, handing memory back
// after a large answer. The object server runs its filters in order, the first outermost, each
// deciding whether and when to pass the call on; then it dispatches the call.

/// Runs around every call an `ObjectServer` dispatches.
public protocol CallFilter: Sendable {
  /// Handles `request`, usually by calling `next` (the later filters, then the method) and
  /// returning its results; work before and after it is the filter's own. Runs on the caller's
  /// executor (`nonisolated(nonsending)`): a filter that does not suspend adds no thread hop.
  nonisolated(nonsending) func filter(_ request: MethodRequest, next: CallFilterNext)
    async throws -> [DBusValue]
}

/// The rest of a call's handling, for a `CallFilter`.
public typealias CallFilterNext =
  nonisolated(nonsending) @Sendable (MethodRequest) async throws -> [DBusValue]
