/// What a document writes beside its contents at a save (UIDocument's
/// `fileAttributesToWrite(to:for:)`).
public struct DocumentFileAttributes: Sendable {
  /// A preview written in the same save: inside a package at `QuickLook/Thumbnail.png` (Apple's
  /// convention), for a single file in the thumbnail cache under the document's identity.
  public var thumbnail: Thumbnail?

  /// Attributes with the given thumbnail.
  public init(thumbnail: Thumbnail? = nil) {
    self.thumbnail = thumbnail
  }
}
