import Foundation
import Quire
import QuireSyncProtocol
import Testing

@testable import QuireServer

#if canImport(Glibc)
  import Glibc
#endif

private typealias S = SyncTestSupport

/// The server's blocking work (a blob read, an fsync, a database round trip) waits on threads
/// of its own: however many requests of one account are stuck in it, Swift's cooperative
/// threads stay free to answer everyone else.
@Suite("Blocking work on its own threads", .serialized, .timeLimit(.minutes(3)))
struct BlockingWorkTests {
  /// Opens `fifo` for writing, which returns once a reader (the server) has opened it: the moment
  /// the server's thread is inside its blob read. On a thread of its own, since it blocks; nil
  /// if no reader came within 60 s (a bound on a hang: the thread is then let go by a reader of
  /// the test's own).
  static func writerEnd(of fifo: String) async -> Int32? {
    let (opened, opening) = AsyncStream<Int32?>.makeStream()
    BackgroundThread.start("fifo writer") { opening.yield(open(fifo, O_WRONLY | O_CLOEXEC)) }
    let bound = Task {
      try await Task.sleep(for: .seconds(60))  // the bound on a hang, not a wait for the event
      opening.yield(nil)
    }
    defer { bound.cancel() }
    var iterator = opened.makeAsyncIterator()
    if let fd = await iterator.next(), let fd { return fd }
    let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    if let fd = await iterator.next(), let fd { close(fd) }
    close(reader)
    return nil
  }

  @Test("fetches stuck in blob reads, more than there are cores, do not stop other requests")
  func stuckReadsLeaveOthersServed() async throws {
    let server = try SyncServerProcess(users: ["alice": "alice-password"])
    let alice = try await server.client("alice")
    // As many stuck fetches as the server has cooperative threads (one per core), each a chunk
    // whose stored bytes are a FIFO: its read blocks until the test writes.
    let stuck = max(2, ProcessInfo.processInfo.activeProcessorCount)
    let store = try ServerStore(folder: server.data.url)
    let account = try store.accountID(named: "alice")
    var chunks: [(hash: ContentHash, bytes: [UInt8], fifo: String)] = []
    for index in 0..<stuck {
      let bytes = S.bytes("stuck chunk \(index)")
      let hash = ContentHash(of: bytes)
      let folder = server.data.url.appendingPathComponent("blobs/" + hash.hex.prefix(2)).path
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      let fifo = folder + "/" + hash.hex
      #expect(mkfifo(fifo, 0o600) == 0)
      _ = try store.write { db in
        try db.execute(
          "INSERT INTO chunks(account, hash, size, pack, packOffset) VALUES (?, ?, ?, NULL, NULL)",
          [account, hash.hex, Int64(bytes.count)])
      }
      chunks.append((hash, bytes, fifo))
    }
    let fetches = chunks.map { chunk in
      Task { try await alice.fetchChunks([chunk.hash])[chunk.hash] }
    }
    var writers: [Int32] = []
    for chunk in chunks {
      guard let writer = await Self.writerEnd(of: chunk.fifo), writer >= 0 else {
        Issue.record("the server never read the chunk \(chunk.hash)")
        for writer in writers { close(writer) }
        return
      }
      writers.append(writer)
    }
    // Every fetch is now inside its read. Another request must still be answered.
    let url = server.url.appendingPathComponent("v1/health").absoluteString
    let health = try await withDeadline(seconds: 30) { try await S.raw(.GET, url).status }
    // The fetches end as their bytes arrive, whatever the answer above was.
    for (writer, chunk) in zip(writers, chunks) {
      _ = chunk.bytes.withUnsafeBytes { write(writer, $0.baseAddress, chunk.bytes.count) }
      close(writer)
    }
    #expect(health == 200, "a health check waited behind \(stuck) stuck fetches")
    for (fetch, chunk) in zip(fetches, chunks) {
      #expect(try await fetch.value == chunk.bytes)
    }
  }
}
