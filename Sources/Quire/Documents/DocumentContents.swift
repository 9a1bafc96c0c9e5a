import Foundation

/// What a document's contents are on disk: the bytes of a single file, or a package as a
/// ``FileWrapper``. ``Document/contents(forType:)`` returns one and
/// ``Document/load(fromContents:ofType:)`` receives one.
public enum DocumentContents: Sendable {
  /// A single-file document's bytes.
  case data(Data)
  /// A package (or any file) as a wrapper; writing it back where it was read is incremental.
  case fileWrapper(FileWrapper)
}
