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

  @Test("a name that changed only its Unicode form is not a change made here")
  func unicodeForm() {
    let known = record("a", revision: 1, stamp: 1, path: "caf\u{E9}.txt")
    let renamed = file("a", stamp: 1, path: "cafe\u{301}.txt")
    #expect(step(entry("a", revision: 2), known, renamed) == .download(onRecord: true))
    #expect(step(deletion("a", revision: 2), known, renamed) == .delete)
  }

  @Test(
    "on every entry, record and file of a small world, the rules hold and the steps are the agent's"
  )
  func everyCase() {
    var cases = 0
    for entry in everyEntry() {
      for known in everyRecord() {
        for local in everyFile() {
          for all in [false, true] {
            cases += 1
            checkRules(entry, known, local, all: all)
          }
        }
      }
    }
    #expect(cases == 48 * 13 * 5 * 2)
  }

  /// The rules for one case, and the step the agent took before it asked ``PullDecision``.
  private func checkRules(
    _ entry: ChangeEntry, _ known: SyncedItem?, _ local: LocalItem?, all: Bool
  ) {
    let first = step(entry, known, local, all: all)
    let again = step(entry, known, local, all: all, uploaded: true)
    let context =
      "\(entry) known \(String(describing: known)) local \(String(describing: local)) all \(all)"
    #expect(first == reference(entry, known, local, all: all, uploaded: false), "\(context)")
    #expect(again == reference(entry, known, local, all: all, uploaded: true), "\(context)")
    let changedHere =
      local.map { local in known.map { !$0.isPlaceholder && !$0.matches(local) } ?? false }
      ?? false
    switch first {
    case .download, .delete:
      #expect(!changedHere, "nothing made here is downloaded over or trashed: \(context)")
    case .uploadFirst:
      #expect(changedHere && again != .uploadFirst, "one upload, then merge: \(context)")
    case .keepFile:
      #expect(entry.deleted && entry.device == "me" && known == nil, "\(context)")
    case .skip, .updatePlaceholder, .placeholderOrDownload: break
    }
    if entry.conflict || !entry.isInDocumentsScope || (known?.revision ?? 0) >= entry.revision {
      #expect(first == .skip, "\(context)")
    }
  }
}

/// The step the agent took for an entry before it asked ``PullDecision`` (its `apply`, aab4c35^,
/// written as the step it began with; `uploaded`: the step after an upload that left the record
/// and the file as they were).
private func reference(
  _ entry: ChangeEntry, _ known: SyncedItem?, _ local: LocalItem?, all: Bool, uploaded: Bool
) -> PullDecision {
  guard !entry.conflict, entry.isInDocumentsScope else { return .skip }
  if let known, known.revision >= entry.revision { return .skip }
  if let known, known.isPlaceholder { return .updatePlaceholder }
  if known == nil, local == nil, !entry.deleted, !all { return .placeholderOrDownload }
  if !uploaded, let local, let known, !known.matches(local) { return .uploadFirst }
  if entry.deleted {
    if local != nil, !(known != nil || entry.device != "me") { return .keepFile }
    return .delete
  }
  return .download(onRecord: local != nil)
}

/// Every entry of the small world: revisions 1 to 3, a deletion or not, a conflict or not, in
/// the documents or not, from this device or another.
private func everyEntry() -> [ChangeEntry] {
  var entries: [ChangeEntry] = []
  for revision in Int64(1)...3 {
    for deleted in [false, true] {
      for conflict in [false, true] {
        for inside in [false, true] {
          for device in ["me", "other"] {
            var each = entry("a", revision: revision, device: device)
            each.deleted = deleted
            each.conflict = conflict
            if !inside { each.path = "Library/a.txt" }
            entries.append(each)
          }
        }
      }
    }
  }
  return entries
}

/// No record, or one at revision 1 to 3, a placeholder or not, under either form of its name.
private func everyRecord() -> [SyncedItem?] {
  var records: [SyncedItem?] = [nil]
  for revision in Int64(1)...3 {
    for placeholder in [false, true] {
      for path in ["caf\u{E9}.txt", "cafe\u{301}.txt"] {
        records.append(
          record("a", revision: revision, stamp: 1, placeholder: placeholder, path: path))
      }
    }
  }
  return records
}

/// No file, or one as synced or written since, under either form of its name.
private func everyFile() -> [LocalItem?] {
  var files: [LocalItem?] = [nil]
  for stamp in 1...2 {
    for path in ["caf\u{E9}.txt", "cafe\u{301}.txt"] {
      files.append(file("a", stamp: stamp, path: path))
    }
  }
  return files
}

/// What ``PullDecision`` says of the case, for this device "me".
private func step(
  _ entry: ChangeEntry, _ known: SyncedItem?, _ local: LocalItem?, all: Bool = false,
  uploaded: Bool = false
) -> PullDecision {
  PullDecision.step(
    for: entry, known: known, local: local, downloadsAll: all, device: "me",
    uploadedFirst: uploaded)
}

/// Another device's (or `device`'s) change of `item` to `revision`, in the documents.
private func entry(_ item: String, revision: Int64, device: String = "other") -> ChangeEntry {
  ChangeEntry(
    sequence: revision, item: item, revision: revision, base: revision - 1, kind: .file,
    path: "Documents/\(item).txt", deleted: false, conflict: false, device: device, committed: 0)
}

/// The deletion of `item` at `revision`.
private func deletion(_ item: String, revision: Int64, device: String = "other") -> ChangeEntry {
  var deletion = entry(item, revision: revision, device: device)
  deletion.deleted = true
  return deletion
}

/// The flat file `id` on disk at `path`, its stat told by `stamp`.
private func file(_ id: String, stamp: Int, path: String? = nil) -> LocalItem {
  LocalItem(
    id: id, path: path ?? "\(id).txt", kind: .file,
    members: ["": LocalItem.Member(size: 10, mode: 0o644, modifiedNanoseconds: Int64(stamp))])
}

/// This device's record of `id` at `revision`, synced at the stat `stamp` tells.
private func record(
  _ id: String, revision: Int64, stamp: Int, placeholder: Bool = false, path: String? = nil
) -> SyncedItem {
  let local = file(id, stamp: stamp).members[""]!
  let hash = ContentHash(of: Data(id.utf8))
  return SyncedItem(
    id: id, path: path ?? "\(id).txt", kind: .file, revision: revision,
    members: [
      "": SyncedItem.Member(
        local: placeholder ? .inCloud : local, hash: hash,
        chunks: [ChunkReference(hash: hash, size: local.size)])
    ],
    isPlaceholder: placeholder)
}
