import QuireSyncProtocol

/// What an agent's push may change on the server, as data: the push's decision reads it rather
/// than the agent checking which share, if any, it syncs.
enum PushRole: Equatable, Sendable {
  /// The account's own drive: every change and deletion is uploaded.
  case drive
  /// A share this account may only read: nothing it changes is uploaded. An item only renamed
  /// gets the owner's name back; anything else changed is kept aside as the participant's own
  /// document ("Name (my changes)"); a deleted item comes back.
  case readOnly
  /// A share this account may change. Deleting is the participant's to do only inside a shared
  /// folder (as adding is); a shared document deleted comes back (unsharing is the owner's).
  case writable(isFolder: Bool)

  /// The role of an agent that syncs `share` (the drive, when nil).
  init(_ share: ShareInfo?) {
    guard let share else {
      self = .drive
      return
    }
    self = share.role == .read ? .readOnly : .writable(isFolder: share.isFolder)
  }

  /// What the push does with a changed item.
  enum ChangeStep: Equatable, Sendable {
    /// It is uploaded.
    case upload
    /// Its synced name comes back (it was only renamed, where this account may not rename).
    case restoreName
    /// It is kept aside as the participant's own document, and the synced revision comes back.
    case keepAside
  }

  /// What the push does with `item`, changed since `known` (nil: new here).
  func step(for item: LocalItem, known: SyncedRecord?) -> ChangeStep {
    guard self == .readOnly else { return .upload }
    return PushDecision.isOnlyMoved(item, known: known) ? .restoreName : .keepAside
  }

  /// Whether the deletion of a synced item gone from the folder is uploaded; if not, the item
  /// comes back.
  var uploadsDeletions: Bool {
    switch self {
    case .drive: true
    case .readOnly: false
    case .writable(let isFolder): isFolder
    }
  }
}
