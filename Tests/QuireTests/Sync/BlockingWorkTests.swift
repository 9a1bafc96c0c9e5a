import AsyncHTTPClient
import Foundation
import NIOCore
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

  /// Makes `bytes` a chunk of alice's stored loose, as a FIFO: a read of it blocks until the
  /// test writes the bytes.
  static func plantFIFO(_ bytes: [UInt8], in server: SyncServerProcess, store: ServerStore)
    throws -> (hash: ContentHash, bytes: [UInt8], fifo: String)
  {
    let hash = ContentHash(of: bytes)
    let folder = server.data.url.appendingPathComponent("blobs/" + hash.hex.prefix(2)).path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let fifo = folder + "/" + hash.hex
    #expect(mkfifo(fifo, 0o600) == 0)
    let account = try store.accounts.accountID(named: "alice")
    _ = try store.backend.write { db in
      try db.execute(
        "INSERT INTO chunks(account, hash, size, pack, packOffset) VALUES (?, ?, ?, NULL, NULL)",
        [account, hash.hex, Int64(bytes.count)])
    }
    return (hash, bytes, fifo)
  }

  @Test("fetches stuck in blob reads, more than there are cores, do not stop other requests")
  func stuckReadsLeaveOthersServed() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let alice = try await server.client("alice")
    // As many stuck fetches as the server has cooperative threads (one per core), each a chunk
    // whose stored bytes are a FIFO: its read blocks until the test writes.
    let stuck = max(2, ProcessInfo.processInfo.activeProcessorCount)
    let store = try ServerStore(folder: server.data.url)
    var chunks: [(hash: ContentHash, bytes: [UInt8], fifo: String)] = []
    for index in 0..<stuck {
      chunks.append(try Self.plantFIFO(S.bytes("stuck chunk \(index)"), in: server, store: store))
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

  @Test("a fetch's first chunks reach the client before its last is read")
  func fetchStreams() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let alice = try await server.client("alice")
    // 4 MiB of chunks (one slice the server reads at once), then one it cannot read yet.
    let first = (0..<16).map { S.random(ContentChunker.standard.maximumSize, seed: UInt64($0)) }
    try await alice.upload(first.map { (ContentHash(of: $0), $0) })
    let stuck = try Self.plantFIFO(
      S.bytes("the last chunk"), in: server, store: try ServerStore(folder: server.data.url))
    var request = HTTPClientRequest(url: server.url.absoluteString + "/v1/chunks/fetch")
    request.method = .POST
    request.headers.add(name: "Authorization", value: "Bearer \(alice.token)")
    let hashes = first.map { ContentHash(of: $0) } + [stuck.hash]
    request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(ChunkList(hashes: hashes))))
    let sliceBytes = first.reduce(0) { $0 + ChunkFrames.headerSize + $1.count }
    let (progress, reporting) = AsyncStream<Int>.makeStream()
    let reading = Task { () throws -> [UInt8] in
      let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
      var body: [UInt8] = []
      for try await buffer in response.body {
        body += Array(buffer: buffer)
        reporting.yield(body.count)
      }
      reporting.finish()
      return body
    }
    // The first slice arrives while the server is still held on the last chunk.
    let arrived = try await withDeadline(seconds: 60) { () async -> Bool in
      for await count in progress where count >= sliceBytes { return true }
      return false
    }
    let writer = await Self.writerEnd(of: stuck.fifo)
    if let writer {
      _ = stuck.bytes.withUnsafeBytes { write(writer, $0.baseAddress, stuck.bytes.count) }
      close(writer)
    }
    #expect(arrived == true, "nothing was sent before the last chunk was read")
    let body = try await reading.value
    let frames = try ChunkFrames.parse(body, maximumChunk: ContentChunker.standard.maximumSize)
    #expect(frames.map(\.hash) == hashes)
    #expect(Array(body[frames.last!.range]) == stuck.bytes)
  }
}
