// SPDX-License-Identifier: MIT
//
// The Core Foundation names the Security framework's Swift API is written in. On Linux,
// Foundation bridges Swift collections to its NS classes with `as`, so the seeds' spellings
// (`query as CFDictionary`, `var item: CFTypeRef?`, `item as? [String: Any]`) compile and mean
// what they mean on Apple platforms.

import Foundation

/// Any object a keychain call returns (`CFTypeRef` on Apple platforms).
public typealias CFTypeRef = AnyObject
/// A query or attribute dictionary; `[String: Any]` converts with `as CFDictionary`.
public typealias CFDictionary = NSDictionary
/// The type of the `kSec…` constants; `kSecClass as String` is how the seeds use them. A Swift
/// string here (an immutable value, safe to share between threads) rather than `NSString`.
public typealias CFString = String
/// Bytes, such as a key's external representation; converts to `Data` with `as Data`.
public typealias CFData = NSData
/// An array of results; converts with `as? [[String: Any]]`.
public typealias CFArray = NSArray
/// An error a `SecKey` function reports through its `error` parameter.
public typealias CFError = NSError
/// The result code of the keychain functions: `errSecSuccess` or an `errSec…` code.
public typealias OSStatus = Int32
