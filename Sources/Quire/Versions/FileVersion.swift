import Foundation
import Synchronization

/// One version of a document, as NSFileVersion presents it: the current one, older saves, and
/// conflict versions — concurrent edits another device made that lost to the current one.
///
/// The versions of a synced document come from its ``VersionStore`` (QuireSync's
/// `SyncVersionStore`: the server's revisions). Calls that reach a store are `async`; where
/// NSFileVersion has a settable `isResolved`, this has ``setResolved(_:)``.
///
/// ```swift
/// for conflict in try await FileVersion.unresolvedConflictVersionsOfItem(at: url) {
///   let text = try String(contentsOf: try await conflict.contentsURL(), encoding: .utf8)
///   try await conflict.setResolved(true)
/// }
/// ```
public final class FileVersion: Sendable, Hashable, CustomStringConvertible {
  /// The document the version belongs to.
  public let itemURL: URL
  /// What the store knows of it.
  public let record: VersionRecord
  private let store: (any VersionStore)?
  private let resolved: Mutex<Bool>

  init(item: URL, record: VersionRecord, store: (any VersionStore)?) {
    itemURL = item
    self.record = record
    self.store = store
    resolved = Mutex(record.isResolved)
  }

  /// When this version was saved.
  public var modificationDate: Date? { record.modificationDate }
  /// The name of the device that saved it (NSFileVersion's `localizedNameOfSavingComputer`).
  public var localizedNameOfSavingComputer: String? { record.deviceName }
  /// The document's name.
  public var localizedName: String { itemURL.lastPathComponent }
  /// Whether it is a conflict version.
  public var isConflict: Bool { record.isConflict }
  /// Whether its conflict is resolved; see ``setResolved(_:)``.
  public var isResolved: Bool { resolved.withLock { $0 } }
  /// Whether its contents are on this device without a download.
  public var hasLocalContents: Bool { record.hasLocalContents }
  /// Whether a thumbnail of it can be had.
  public var hasThumbnail: Bool { record.hasThumbnail }
  /// For a conflict version kept aside because another program locked the item (a WebDAV
  /// client, for a synced item): who held the lock. Nil for any other version.
  public var lockOwner: String? { record.lockOwner }
  /// Whether it is the document's current version.
  public var isCurrent: Bool { record.isCurrent }

  /// A description for logs.
  public var description: String {
    "FileVersion(\(localizedName) \(record.identifier)\(isConflict ? " conflict" : ""))"
  }

  /// The file or package holding this version's contents, to read (a synced version is
  /// downloaded first). The current version's is the document itself.
  public func contentsURL() async throws -> URL {
    guard let store, !record.isCurrent else { return itemURL }
    return try await store.contents(of: record, item: itemURL)
  }

  /// Marks this conflict version resolved (or not), for every device: an item with no
  /// unresolved conflict version stops reporting `hasUnresolvedConflicts`.
  public func setResolved(_ resolved: Bool) async throws {
    guard isConflict, let store else { return }
    try await store.setResolved(resolved, [record], item: itemURL)
    self.resolved.withLock { $0 = resolved }
  }

  /// Removes this version (not the current one): it is no longer listed, and its space is
  /// freed once nothing else refers to it.
  public func remove() async throws {
    guard !record.isCurrent else {
      throw QuireError(
        .unsupported,
        "The current version of “\(itemURL.path)” cannot be removed: delete the document instead.",
        path: itemURL.path)
    }
    guard let store else { return }
    try await store.remove([record], item: itemURL)
  }

  /// Makes this version's contents the document's current ones (as a new version, on every
  /// device) and returns the document's URL.
  @discardableResult
  public func replaceItem(at url: URL, options: ReplacingOptions = []) async throws -> URL {
    guard !record.isCurrent else { return url }
    guard let store, url.standardizedFileURL == itemURL.standardizedFileURL else {
      throw QuireError(
        .unsupported,
        "This version of “\(itemURL.path)” can only replace that document, not “\(url.path)”.",
        path: url.path)
    }
    try await store.restore(record, item: itemURL)
    if options.contains(.byMoving) { try await store.remove([record], item: itemURL) }
    return url
  }

  /// How ``replaceItem(at:options:)`` replaces.
  public struct ReplacingOptions: OptionSet, Sendable {
    /// The raw bits.
    public let rawValue: Int
    /// A set from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The version is removed once its contents are the current ones.
    public static let byMoving = ReplacingOptions(rawValue: 1)
  }

  /// Versions are the same when they are the same version of the same document.
  public static func == (lhs: FileVersion, rhs: FileVersion) -> Bool {
    lhs.itemURL == rhs.itemURL && lhs.record.identifier == rhs.record.identifier
  }

  /// Hashes the document and the version's identifier.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(itemURL)
    hasher.combine(record.identifier)
  }
}
