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
      let latest = ([current].compactMap { $0 } + conflicts).max {
        ($0.modificationDate ?? .distantPast) < ($1.modificationDate ?? .distantPast)
      }
      if let latest, !latest.isCurrent { try await latest.replaceItem(at: item) }
      for conflict in conflicts { try await conflict.setResolved(true) }
      try await FileVersion.removeOtherVersionsOfItem(at: item)
      return true
    }
  }
}
