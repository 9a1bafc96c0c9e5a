import Foundation
import Synchronization

@testable import Quire

#if canImport(Glibc)
  import Glibc
#endif

/// Runs code with the system-call hook installed: records the calls made, or fails exactly one.
enum Faults {
  /// The names of the system calls `body` makes, in order.
  static func record(_ body: () throws -> Void) rethrows -> [String] {
    let calls = Mutex<[String]>([])
    try Sys.$faults.withValue(
      FaultHook { call in
        calls.withLock { $0.append(call) }
        return nil
      }
    ) { try body() }
    return calls.withLock { $0 }
  }

  /// The names of the system calls an async `body` on the main actor makes, in order.
  @MainActor
  static func record(_ body: @MainActor () async throws -> Void) async rethrows -> [String] {
    let calls = Mutex<[String]>([])
    try await Sys.$faults.withValue(
      FaultHook { call in
        calls.withLock { $0.append(call) }
        return nil
      }
    ) { try await body() }
    return calls.withLock { $0 }
  }

  /// Runs `body` with call number `index` (0-based) failing with `errno`.
  static func failing<T>(call index: Int, errno: Int32, _ body: () throws -> T) rethrows -> T {
    let count = Mutex(0)
    return try Sys.$faults.withValue(
      FaultHook { _ in
        count.withLock { count in
          defer { count += 1 }
          return count == index ? errno : nil
        }
      }
    ) { try body() }
  }

  /// Runs `body` with `hook` called before every system call (it may change state mid-save).
  static func observing<T>(_ hook: @escaping @Sendable (String) -> Void, _ body: () throws -> T)
    rethrows -> T
  {
    try Sys.$faults.withValue(
      FaultHook { call in
        hook(call)
        return nil
      }
    ) { try body() }
  }
}
