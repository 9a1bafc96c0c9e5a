/// What one garbage collection of a ``ServerStore`` freed.
public struct CollectionReport: Sendable, Equatable, Codable {
  /// Old revisions the thinning took off their items' version lists.
  public var thinned: Int
  /// Chunks no kept version names any more, removed.
  public var chunks: Int
  /// Pack files (and loose chunk files) deleted.
  public var files: Int
  /// The bytes those files held.
  public var bytes: Int64

  /// A report.
  public init(thinned: Int = 0, chunks: Int = 0, files: Int = 0, bytes: Int64 = 0) {
    self.thinned = thinned
    self.chunks = chunks
    self.files = files
    self.bytes = bytes
  }
}
