import Foundation
import QuireSyncProtocol

extension SyncAgent {
  /// Uploads `items` together: each read inside its own coordinated read, then one question
  /// about the chunks the server lacks, one upload of them, and one commit request for all.
  /// If the batch is refused for something one item did, each is committed alone, so that item
  /// gets its error and the others sync.
  func uploadBatch(_ items: [LocalItem]) async throws {
    var prepared: [PreparedUpload] = []
    state.setStatus(items.map { ($0.id, $0.path) }, state: .uploading)
    var unchanged: [(item: SyncedItem, changed: [String], removed: [String])] = []
    for (item, read) in zip(items, prepare(items)) {
      do {
        let upload = try read.get()
        if upload.isUnchanged, let base = upload.base {
          // Read again only to be sure (racily clean): recorded, nothing sent.
          unchanged.append(
            (upload.record(revision: base.revision), upload.snapshots.map(\.path), []))
        } else {
          prepared.append(upload)
        }
      } catch {
        try noteItemFailure(error, item: item)
      }
    }
    try state.record(unchanged, clearingStatus: true)
    for record in unchanged { synced[record.item.id] = record.item }
    guard !prepared.isEmpty else { return }
    var sources: PreparedUpload.Sources = [:]
    var held = Set<ContentHash>()
    for upload in prepared {
      sources.merge(upload.sources) { first, _ in first }
      held.formUnion(upload.held)
    }
    do {
      try await send(
        sources.keys.filter { !held.contains($0) }, from: sources,
        deltas: prepared.compactMap { upload in upload.base.map { ($0, upload.sources) } })
    } catch {
      try await uploadEach(prepared, after: error)
      return
    }
    let answers: [CommitResponse]
    do {
      answers = try await client.commit(
        batch: prepared.map { stamped($0.request) },
        editing: prepared.map { $0.base?.members.mapValues(\.chunks) ?? [:] })
    } catch {
      try await uploadEach(prepared, after: error)
      return
    }
    // The committed ones are recorded together, in one transaction; conflicts one by one.
    var records: [(item: SyncedItem, changed: [String], removed: [String])] = []
    let placedAsAsked = { (upload: PreparedUpload, answer: CommitResponse) in
      answer.status == .current && (answer.path ?? upload.request.path) == upload.request.path
    }
    for (upload, answer) in zip(prepared, answers) where placedAsAsked(upload, answer) {
      records.append(
        (upload.record(revision: answer.revision), upload.snapshots.map(\.path), upload.removed))
    }
    try state.record(records, clearingStatus: true)
    for record in records { synced[record.item.id] = record.item }
    for (upload, answer) in zip(prepared, answers) where !placedAsAsked(upload, answer) {
      do {
        try await finish(upload, answer: answer)
      } catch {
        try noteItemFailure(error, item: upload.item)
      }
    }
  }

  /// The batch failed with `error`: a server that is away or busy is retried later as a whole;
  /// anything else is sorted out one item at a time.
  private func uploadEach(_ prepared: [PreparedUpload], after error: any Error) async throws {
    if let error = error as? SyncError, error.code == .unavailable || error.code == .rateLimited {
      throw error
    }
    for one in prepared {
      do {
        try await upload(one.item, base: one.base)
      } catch {
        try noteItemFailure(error, item: one.item)
      }
    }
  }
}
