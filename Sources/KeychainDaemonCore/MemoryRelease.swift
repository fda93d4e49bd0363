// SPDX-License-Identifier: MIT
//
// Memory back to the system after transient work: a 10 MiB secret, or the `Items` of a
// collection of 100k items (a few MB of small allocations), left the daemon at 71 and 41 MiB
// resident for good. Buffers of up to 32 MiB come from the heap, which glibc does not trim by
// itself (keychaind sets its allocator up at start, see `ProcessControl.tuneAllocator`), so that a
// burst of big reads reuses its pages; once things are quiet, malloc_trim hands the free
// pages back. It runs after writes and large reads, off every caller's path.

import Dispatch
import KeychainDBus
import KeychainSystem
import Synchronization

package enum MemoryRelease {
  /// What counts as large: a secret of this many bytes, or a list of this many objects.
  package static let largeSecret = 1 << 20
  package static let largeList = 10_000

  private static let generation = Mutex(0)
  private static let queue = DispatchQueue(label: "keychaind.memory-release", qos: .utility)

  /// After the reply to `request`, and once nothing large has happened for half a second,
  /// returns the heap's free pages.
  static func afterReply(to request: MethodRequest) {
    request.afterReply { schedule() }
  }

  /// Once nothing large has happened for half a second, returns the heap's free pages.
  package static func soon() { schedule() }

  private static func schedule() {
    let mine = generation.withLock { generation in
      generation += 1
      return generation
    }
    queue.asyncAfter(deadline: .now() + .milliseconds(500)) {
      guard generation.withLock({ $0 == mine }) else { return }
      ProcessControl.releaseMemory()
    }
  }
}
