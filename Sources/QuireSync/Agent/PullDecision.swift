import QuireSyncProtocol

/// What a pull does with one journal entry, decided from values alone: the entry, this
/// device's record of its item, and the item as it is on disk.
///
/// The agent carries out the step and, after an upload the step asked for first, asks again
/// with what the upload left: the decision never assumes an operation succeeded. The rules a
/// user relies on (a change made here is never downloaded over; modification beats deletion;
/// an entry is applied once; a file whose deletion nobody made stays) are tested on generated
/// entries (`PullDecisionTests`).
enum PullDecision: Equatable, Sendable {
  /// Nothing: a conflict revision (the server keeps it), an entry outside the documents, or
  /// one this device has already applied.
  case skip
  /// The item is a placeholder here: its placeholder follows the entry (rewritten, moved, or
  /// removed for a deletion).
  case updatePlaceholder
  /// New here, and the policy may keep it in the cloud: its manifest decides between a
  /// placeholder and a download.
  case placeholderOrDownload
  /// The copy here changed since it was synced: it is uploaded first (the server merges it, or
  /// keeps it as a conflict revision; a deletion then loses to it), and the entry is decided
  /// again.
  case uploadFirst
  /// This device's own deletion of an item it has no record of, while a file here carries its
  /// identity: the scan missed the file mid-move and uploaded a deletion no one made. The file
  /// stays, and the next push brings the item back where it is.
  case keepFile
  /// A deletion: the file here, if any, goes to the trash, and the record goes.
  case delete
  /// A download of the entry's revision: on the synced record when the item is here
  /// (`onRecord`, so only what differs is fetched and a change here merges), whole otherwise.
  case download(onRecord: Bool)

  /// The step for `entry`, given this device's record of its item (`known`), the item on disk
  /// (`local`), whether every item is downloaded (`downloadsAll`), this device's name, and
  /// whether this entry already had its upload (`uploadedFirst`: its download then merges).
  static func step(
    for entry: ChangeEntry, known: SyncedItem?, local: LocalItem?, downloadsAll: Bool,
    device: String, uploadedFirst: Bool = false
  ) -> PullDecision {
    guard !entry.conflict, entry.isInDocumentsScope, !isApplied(entry, known: known) else {
      return .skip
    }
    if let known, known.isPlaceholder { return .updatePlaceholder }
    if known == nil, local == nil, !entry.deleted, !downloadsAll { return .placeholderOrDownload }
    // (Paths compared as strings: a name that changed only its Unicode form is not a change
    // the download must wait for; the download renames it to the server's.)
    if !uploadedFirst, let local, let known, !known.matches(local) { return .uploadFirst }
    if entry.deleted {
      if local != nil, known == nil, entry.device == device { return .keepFile }
      return .delete
    }
    return .download(onRecord: local != nil)
  }

  /// Whether this device's record already holds `entry`'s revision or a later one.
  static func isApplied(_ entry: ChangeEntry, known: SyncedItem?) -> Bool {
    known.map { $0.revision >= entry.revision } ?? false
  }
}
