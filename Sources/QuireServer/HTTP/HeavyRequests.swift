import Hummingbird
import QuireSyncProtocol
import Synchronization

/// Bounds the requests that hold much memory or disk time at once (chunk fetches, manifest
/// batches, a public link's download) per account or per link: past `perKey` at once, another
/// is answered `429 rateLimited`, so one account cannot take the server's memory or its
/// database threads from everyone else. A request holds its place until its answer's bytes are
/// written (or dropped, when its client has gone), not only until the answer is made: a client
/// that never reads must not pile up answers in memory.
final class HeavyRequests: Sendable {
  /// One place taken; given back when the last reference goes (the answer written or dropped).
  private final class Place: Sendable {
    let owner: HeavyRequests
    let key: String
    init(_ owner: HeavyRequests, _ key: String) {
      self.owner = owner
      self.key = key
    }
    deinit { owner.giveBack(key) }
  }

  private let running = Mutex<[String: Int]>([:])
  /// The heavy requests one key may run at once.
  let perKey: Int

  init(perKey: Int = 8) { self.perKey = perKey }

  /// How many heavy requests `key` runs now.
  func count(_ key: String) -> Int { running.withLock { $0[key, default: 0] } }

  /// Makes `key`'s answer with `body` and holds a place until it is written, or throws
  /// `rateLimited` if `key` already runs ``perKey``.
  func run(_ key: String, _ body: () async throws -> Response) async throws -> Response {
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
    let place = Place(self, key)
    var response = try await body()
    let answer = response.body
    response.body = ResponseBody(contentLength: answer.contentLength) { writer in
      try await answer.write(writer)
      withExtendedLifetime(place) {}
    }
    return response
  }

  private func giveBack(_ key: String) {
    running.withLock { running in
      running[key, default: 1] -= 1
      if running[key] == 0 { running[key] = nil }
    }
  }
}
