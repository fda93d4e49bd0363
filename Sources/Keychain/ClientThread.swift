// SPDX-License-Identifier: MIT
//
// The SecItem functions are synchronous, the D-Bus client is async. Blocking a thread of the
// cooperative pool while its work waits for that same pool can deadlock (two cores: two
// threads), so the client's tasks run on a thread of their own: a task executor that the
// caller's thread waits on with a semaphore, never sharing the pool with it.

import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

final class ClientThread: TaskExecutor, @unchecked Sendable {
  // Invariant for @unchecked Sendable: `jobs` is guarded by its Mutex; `ready` is thread-safe.
  private let jobs = Mutex<[UnownedJob]>([])
  private let ready = DispatchSemaphore(value: 0)

  /// The one thread all keychain clients in the process share.
  static let shared = ClientThread()

  private init() {
    var thread = pthread_t()
    // The retain goes to the thread, which takes it over and never ends: the executor lives
    // as long as the process.
    let context = Unmanaged.passRetained(self).toOpaque()
    let rc = pthread_create(
      &thread, nil,
      { context in
        Unmanaged<ClientThread>.fromOpaque(context!).takeRetainedValue().run()
        return nil
      }, context)
    precondition(rc == 0, "cannot start the keychain client thread: error \(rc)")
    pthread_detach(thread)
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let unowned = UnownedJob(job)
    jobs.withLock { $0.append(unowned) }
    ready.signal()
  }

  private func run() {
    while true {
      ready.wait()
      let job = jobs.withLock { $0.removeFirst() }
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }

  /// Runs `body` on the client thread and blocks the calling thread until it is done.
  static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let result = ResultBox<T>()
    Task(executorPreference: shared) {
      do {
        let value = try await body()
        result.value.withLock { $0 = .success(value) }
      } catch {
        result.value.withLock { $0 = .failure(error) }
      }
      done.signal()
    }
    done.wait()
    return try result.value.withLock { $0! }.get()
  }
}

private final class ResultBox<T: Sendable>: Sendable {
  let value = Mutex<Result<T, any Error>?>(nil)
}
