// SPDX-License-Identifier: MIT
//
// The release both programs report with --version (and `make deb` names the package by),
// kept in one place so that keychaind and keychainctl cannot disagree.

/// This build's release.
public enum Release {
  /// The version, as `keychaind --version` and `keychainctl --version` print it.
  public static let version = "0.1.0"
}
