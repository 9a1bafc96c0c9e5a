import Foundation

/// One item to read or write in ``FileCoordinator/coordinate(with:byAccessor:)``
/// (NSFileAccessIntent).
public struct FileAccessIntent: Sendable, Hashable {
  enum Access: Sendable, Hashable {
    case reading(FileCoordinator.ReadingOptions)
    case writing(FileCoordinator.WritingOptions)
  }

  /// The item as requested.
  public let url: URL
  let access: Access

  /// An intent to read `url`.
  public static func readingIntent(
    with url: URL, options: FileCoordinator.ReadingOptions = []
  ) -> FileAccessIntent {
    FileAccessIntent(url: url, access: .reading(options))
  }

  /// An intent to write `url`.
  public static func writingIntent(
    with url: URL, options: FileCoordinator.WritingOptions = []
  ) -> FileAccessIntent {
    FileAccessIntent(url: url, access: .writing(options))
  }

  /// Whether the intent writes.
  public var isWriting: Bool {
    if case .writing = access { return true }
    return false
  }
}
