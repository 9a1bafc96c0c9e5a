import Foundation
import Quire
import QuireSync

/// One document or folder as the page shows it.
struct LibraryItem: Encodable {
  var path: String
  var name: String
  var kind: String
  var type: String
  var isFolder: Bool
  var size: Int64
  var modified: Date
  var tags: [String]
  var id: String
  /// Where it is in its sync (nil when the library is not synced), sent by its raw value.
  var sync: SyncItemState?
  /// The error of `error` and `downloadError`.
  var syncError: String?
  /// Whether a conflict copy of it waits to be resolved.
  var conflicts: Bool?
  /// How much of it is here, 0 to 100, while it is in the cloud or downloading.
  var percent: Double?
  /// How it is shared with other accounts: `owner` (yours, shared), `readWrite` or `readOnly`
  /// (another account's, shared with you); nil if it is not shared.
  var shared: String?
  /// The owner's account name, for an item shared with you.
  var owner: String?
}

extension LibraryItem {
  /// The item the live query found, as the page shows it. (An extension, so the memberwise
  /// initializer stays for the tests.)
  init(_ item: DocumentQuery.Item, library: LibraryFolder) {
    self.init(
      path: library.relative(item.url), name: item.name, kind: "", type: item.contentType,
      isFolder: item.isFolder, size: item.size, modified: item.modificationDate,
      tags: item.tags, id: "")
    kind = Self.kind(of: item)
    id = item.identity ?? path
    if let status = item.ubiquity {
      let state = Self.syncState(status)
      sync = state
      syncError = (status.uploadingError ?? status.downloadingError)?.message
      conflicts = status.hasUnresolvedConflicts
      if let sharing = status.sharing {
        shared = sharing.role == .owner ? "owner" : sharing.permissions.rawValue
        owner = sharing.owner
      }
      if state == .notDownloaded || state == .downloading || item.isPlaceholder {
        percent = item.percentDownloaded
      }
    }
  }

  /// The item's kind as the page names it: `folder`, a sample document's kind, or `other`.
  static func kind(of item: DocumentQuery.Item) -> String {
    item.isFolder ? "folder" : (SampleDocuments.Kind(url: item.url)?.rawValue ?? "other")
  }

  /// The item's sync state as the page shows it.
  static func syncState(_ status: UbiquityStatus) -> SyncItemState {
    if status.uploadingError != nil { return .error }
    if status.downloadingError != nil { return .downloadError }
    if status.isUploading { return .uploading }
    if status.isDownloading { return .downloading }
    if !status.isUploaded { return .waiting }
    return status.downloadingStatus == .notDownloaded ? .notDownloaded : .current
  }
}
