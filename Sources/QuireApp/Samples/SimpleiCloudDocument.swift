import Foundation
import Quire

/// The SimpleiCloudDocument sample's document (`org.quire.simple-icloud-document`, `.sicd`): a
/// package of images, as in Apple's sample. It works as an ``AlbumDocument`` does — images
/// loaded one at a time and released after use, a save adds or removes just that member — and
/// adds the sample's way of settling a conflict: ``resolveConflictsKeepingLatest(at:)``.
@MainActor
public final class SimpleiCloudDocument: AlbumDocument {
  /// The content type identifier.
  public nonisolated static let sicdTypeIdentifier = "org.quire.simple-icloud-document"

  /// A document at `fileURL`.
  public init(fileURL: URL, clock: any Clock<Duration> = ContinuousClock()) {
    super.init(fileURL: fileURL, fileType: Self.sicdTypeIdentifier, clock: clock)
  }

  /// Settles the document's conflict the sample's way, inside a coordinated write: of the
  /// current version and the unresolved conflict versions, the one with the latest
  /// modification date becomes current; every conflict is marked resolved, and the other
  /// versions are removed. Returns whether there was a conflict.
  @discardableResult
  public static func resolveConflictsKeepingLatest(at url: URL) async throws -> Bool {
    try await FileCoordinator().coordinate(with: [.writingIntent(with: url)]) { urls in
      let item = urls[0]
      let conflicts = try await FileVersion.unresolvedConflictVersionsOfItem(at: item)
      guard !conflicts.isEmpty else { return false }
      let current = try await FileVersion.currentVersionOfItem(at: item)
      var latest: (version: FileVersion, date: Date)?
      for version in [current].compactMap({ $0 }) + conflicts {
        let date = contentsModified(try await version.contentsURL())
        if latest == nil || date > latest!.date { latest = (version, date) }
      }
      if let latest, !latest.version.isCurrent { try await latest.version.replaceItem(at: item) }
      for conflict in conflicts { try await conflict.setResolved(true) }
      try await FileVersion.removeOtherVersionsOfItem(at: item)
      return true
    }
  }

  /// When the contents at `url` were last modified: the file's modification, or the newest of
  /// the package's files (a folder's own date changes with any listing change, a download's
  /// included) — the date NSFileVersion reports for a version's file. (A synced version's own
  /// `modificationDate` is when the server committed it, which for a merge is later than the
  /// edits it holds.)
  nonisolated static func contentsModified(_ url: URL) -> Date {
    let keys: Set<URLResourceKey> = [.contentModificationDateKey, .isRegularFileKey]
    let members = FileManager.default.enumerator(
      at: url, includingPropertiesForKeys: Array(keys))
    var files = [url]
    while let member = members?.nextObject() as? URL { files.append(member) }
    return files.compactMap { file -> Date? in
      guard let values = try? file.resourceValues(forKeys: keys), values.isRegularFile == true
      else { return nil }
      return values.contentModificationDate
    }.max() ?? .distantPast
  }
}
