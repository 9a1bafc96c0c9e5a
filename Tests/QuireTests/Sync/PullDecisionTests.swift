import Foundation
import QuireSyncProtocol
import Testing

@testable import QuireSync

/// What a pull does with a journal entry, decided from values (``PullDecision``): the rules a
/// user relies on, on named cases and on generated entries, records and files.
@Suite("Pull decision: what a journal entry does here, from values alone")
struct PullDecisionTests {
  @Test("an edit made here is uploaded before another device's revision is brought over it")
  func localChangeFirst() {
    let known = record("a", revision: 1, stamp: 1)
    let edited = file("a", stamp: 2)
    let entry = entry("a", revision: 2)
    #expect(step(entry, known, edited) == .uploadFirst)
    // Asked again after the upload: the download merges on the new record, never a second upload.
    #expect(step(entry, known, edited, uploaded: true) == .download(onRecord: true))
    // Another device's deletion loses to it the same way.
    #expect(step(deletion("a", revision: 2), known, edited) == .uploadFirst)
    #expect(step(deletion("a", revision: 2), known, file("a", stamp: 1)) == .delete)
  }

  @Test("an entry is applied once; a conflict revision and an item outside the documents never")
  func skipped() {
    let known = record("a", revision: 3, stamp: 1)
    #expect(step(entry("a", revision: 3), known, file("a", stamp: 1)) == .skip)
    #expect(step(entry("a", revision: 2), known, file("a", stamp: 5)) == .skip)
    var conflict = entry("a", revision: 4)
    conflict.conflict = true
    #expect(step(conflict, known, file("a", stamp: 1)) == .skip)
    var outside = entry("a", revision: 4)
    outside.path = "Library/a.txt"
    #expect(step(outside, known, file("a", stamp: 1)) == .skip)
  }

  @Test("a new item is a placeholder or a download as the policy says; a placeholder follows")
  func newItems() {
    #expect(step(entry("n", revision: 1), nil, nil) == .placeholderOrDownload)
    #expect(step(entry("n", revision: 1), nil, nil, all: true) == .download(onRecord: false))
    let placeholder = record("p", revision: 1, stamp: 1, placeholder: true)
    #expect(step(entry("p", revision: 2), placeholder, nil) == .updatePlaceholder)
    #expect(step(deletion("p", revision: 2), placeholder, nil) == .updatePlaceholder)
  }

  @Test("this device's own deletion of a file it has no record of leaves the file")
  func ownDeletion() {
    #expect(step(deletion("a", revision: 2, device: "me"), nil, file("a", stamp: 1)) == .keepFile)
    #expect(step(deletion("a", revision: 2, device: "other"), nil, file("a", stamp: 1)) == .delete)
    #expect(step(deletion("a", revision: 2, device: "me"), nil, nil) == .delete)
  }

  @Test("on generated entries, records and files, every rule a user relies on holds")
  func generated() {
    var random = SplitMix(seed: 31)
    for round in 0..<5_000 {
      var entry = entry("a", revision: Int64(1 + random.below(4)))
      entry.deleted = random.below(3) == 0
      entry.conflict = random.below(8) == 0
      if random.below(8) == 0 { entry.path = "Library/a.txt" }
      entry.device = random.below(2) == 0 ? "me" : "other"
      let known: SyncedRecord? =
        random.below(4) == 0
        ? nil
        : record(
          "a", revision: Int64(1 + random.below(4)), stamp: 1, placeholder: random.below(6) == 0)
      let local: LocalItem? = random.below(3) == 0 ? nil : file("a", stamp: 1 + random.below(2))
      let all = random.below(2) == 0
      let first = step(entry, known, local, all: all)
      let context =
        "round \(round): \(entry) known \(String(describing: known?.revision)) local \(String(describing: local?.members))"

      let applies = !entry.conflict && entry.isInDocumentsScope
      let applied = known.map { $0.revision >= entry.revision } ?? false
      if !applies || applied { #expect(first == .skip, "\(context)") }
      let changedHere =
        local != nil && known != nil && known?.isPlaceholder == false
        && known?.matches(local!) == false
      if applies && !applied && changedHere {
        // Nothing here is downloaded over, nor trashed, before it is uploaded.
        #expect(first == .uploadFirst, "\(context)")
      }
      if first == .uploadFirst {
        #expect(changedHere, "\(context)")
        #expect(step(entry, known, local, all: all, uploaded: true) != .uploadFirst, "\(context)")
      }
      if first == .keepFile {
        #expect(known == nil && local != nil && entry.deleted && entry.device == "me", "\(context)")
      }
      if first == .delete { #expect(entry.deleted, "\(context)") }
      if case .download(let onRecord) = first {
        #expect(!entry.deleted && onRecord == (local != nil), "\(context)")
      }
      if first == .placeholderOrDownload { #expect(!all && known == nil && local == nil) }
      if first == .updatePlaceholder { #expect(known?.isPlaceholder == true, "\(context)") }
    }
  }
}

private func step(
  _ entry: ChangeEntry, _ known: SyncedRecord?, _ local: LocalItem?, all: Bool = false,
  uploaded: Bool = false
) -> PullDecision {
  PullDecision.step(
    for: entry, known: known, local: local, downloadsAll: all, device: "me",
    uploadedFirst: uploaded)
}

private func entry(_ item: String, revision: Int64, device: String = "other") -> ChangeEntry {
  ChangeEntry(
    sequence: revision, item: item, revision: revision, base: revision - 1, kind: .file,
    path: "Documents/\(item).txt", deleted: false, conflict: false, device: device, committed: 0)
}

private func deletion(_ item: String, revision: Int64, device: String = "other") -> ChangeEntry {
  var deletion = entry(item, revision: revision, device: device)
  deletion.deleted = true
  return deletion
}

private func file(_ id: String, stamp: Int) -> LocalItem {
  LocalItem(
    id: id, path: "\(id).txt", kind: .file,
    members: ["": LocalItem.Member(size: 10, mode: 0o644, modifiedNanoseconds: Int64(stamp))])
}

private func record(_ id: String, revision: Int64, stamp: Int, placeholder: Bool = false)
  -> SyncedRecord
{
  let local = file(id, stamp: stamp).members[""]!
  let hash = ContentHash(of: Data(id.utf8))
  return SyncedRecord(
    SyncedItem(
      id: id, path: "\(id).txt", kind: .file, revision: revision,
      members: [
        "": SyncedItem.Member(
          local: placeholder ? .inCloud : local, hash: hash,
          chunks: [ChunkReference(hash: hash, size: local.size)])
      ],
      isPlaceholder: placeholder))
}
