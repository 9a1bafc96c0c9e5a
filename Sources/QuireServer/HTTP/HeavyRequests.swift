import QuireSyncProtocol
import Synchronization

/// Bounds the requests that hold much memory or disk time at once (chunk fetches, manifest
/// batches, a public link's download) per account or per link: past `perKey` at once, another
/// is answered `429 rateLimited`, so one account cannot take the server's memory or its
/// database threads from everyone else.
final class HeavyRequests: Sendable {
  private let running = Mutex<[String: Int]>([:])
  /// The heavy requests one key may run at once.
  let perKey: Int

  init(perKey: Int = 8) { self.perKey = perKey }

  /// Runs `body` as one of `key`'s heavy requests, or throws `rateLimited` if `key` already runs
  /// ``perKey``.
  func run<T>(_ key: String, _ body: () async throws -> T) async throws -> T {
    let admitted = running.withLock { running in
      guard running[key, default: 0] < perKey else { return false }
      running[key, default: 0] += 1
      return true
    }
    guard admitted else {
      throw SyncError(
        .rateLimited,
        "Too many large requests at once from this account or link; wait for one to finish.")
    }
    defer {
      running.withLock { running in
        running[key, default: 1] -= 1
        if running[key] == 0 { running[key] = nil }
      }
    }
    return try await body()
  }
}
