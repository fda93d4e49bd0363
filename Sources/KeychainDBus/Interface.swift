// SPDX-License-Identifier: MIT
//
// An interface declared whole, as zbus declares one: its name and every method, property and
// signal, each already declared with its Swift types (`Takes…Returns`, `Property`, `Emits`).
// The same value gives a client its calls, a server's `InterfaceTable` the list of handlers it
// must have, and introspection its description, so none of them can drift from the others.

/// A method declared with its types (`Takes…Returns`), seen without them.
public protocol MethodDeclaration: Sendable {
  /// The interface the method belongs to.
  var interface: InterfaceName { get }
  /// Its name and argument types, as introspection shows them.
  var description: MethodDescription { get }
  /// The errors it answers besides `ErrorName.everyMethod`.
  var errors: Set<ErrorName> { get }
}

/// A property declared with its type (`Property`), seen without it.
public protocol PropertyDeclaration: Sendable {
  var interface: InterfaceName { get }
  var description: PropertyDescription { get }
}

/// A signal declared with its types (`Emits`), seen without them.
public protocol SignalDeclaration: Sendable {
  var interface: InterfaceName { get }
  var description: SignalDescription { get }
}

extension Takes.Returns: MethodDeclaration {}
extension Property: PropertyDeclaration {}
extension Emits: SignalDeclaration {}

/// One D-Bus interface: its name, methods, properties and signals, in introspection's order.
///
/// Two methods may share a name if their input signatures differ (KWallet's overloads): calls
/// are dispatched, and introspected, by name and signature.
public struct Interface: Sendable {
  public let name: InterfaceName
  public let methods: [any MethodDeclaration]
  public let properties: [any PropertyDeclaration]
  public let signals: [any SignalDeclaration]
  /// The declaration as introspection prints it and the object server checks calls against it.
  public let description: InterfaceDescription
  /// Whether an error a method answers must be one it declares (the object server logs one
  /// that is not). Off for Properties and Introspectable, which pass on what the object's own
  /// accessors and tree answer.
  public let checksErrors: Bool

  /// Declares `name` with its members; each must belong to `name`, and no two methods may have
  /// the same name and input signature.
  public init(
    _ name: InterfaceName, methods: [any MethodDeclaration] = [],
    properties: [any PropertyDeclaration] = [], signals: [any SignalDeclaration] = [],
    checksErrors: Bool = true
  ) {
    precondition(
      methods.allSatisfy { $0.interface == name } && properties.allSatisfy { $0.interface == name }
        && signals.allSatisfy { $0.interface == name },
      "\(name): a member declared on another interface")
    let keys = methods.map { MethodKey($0.description) }
    precondition(Set(keys).count == keys.count, "\(name): a method declared twice")
    self.name = name
    self.methods = methods
    self.properties = properties
    self.signals = signals
    self.checksErrors = checksErrors
    description = InterfaceDescription(
      name, methods: methods.map(\.description), properties: properties.map(\.description),
      signals: signals.map(\.description))
  }

  /// The errors each method may answer, every method's included; none when not checked.
  func declaredErrors() -> [MethodKey: Set<ErrorName>] {
    guard checksErrors else { return [:] }
    return Dictionary(
      uniqueKeysWithValues: methods.map {
        (MethodKey($0.description), $0.errors.union(ErrorName.everyMethod))
      })
  }
}

/// A method as dispatch knows it: its name and input signature.
public struct MethodKey: Hashable, Sendable, CustomStringConvertible {
  public let member: MemberName
  public let signature: String

  public init(_ member: MemberName, _ signature: String) {
    self.member = member
    self.signature = signature
  }

  init(_ method: MethodDescription) {
    self.init(method.name, method.inputSignature)
  }

  public var description: String { "\(member)(\(signature))" }
}
