import Foundation
import Quire

/// The iCloud sample's large-data-set document (`org.quire.album`, `.album`): a package of many
/// images. Opening it reads the list of images only; an image's bytes are read when asked for
/// and released after use; adding or removing an image writes or deletes just that member.
@MainActor
public class AlbumDocument: Document {
  /// The content type identifier.
  public nonisolated static let typeIdentifier = "org.quire.album"

  private var package = FileWrapper(directoryWithFileWrappers: [:])

  /// An album at `fileURL`.
  public convenience init(fileURL: URL, clock: any Clock<Duration> = ContinuousClock()) {
    self.init(fileURL: fileURL, fileType: AlbumDocument.typeIdentifier, clock: clock)
  }

  /// A package of images of another type (``SimpleiCloudDocument``).
  init(fileURL: URL, fileType: String, clock: any Clock<Duration>) {
    super.init(fileURL: fileURL, fileType: fileType, clock: clock)
  }

  /// The images' names, sorted.
  public var imageNames: [String] {
    (package.fileWrappers ?? [:]).filter { $0.value.isRegularFile }.keys.sorted()
  }

  /// The bytes of the image `name`, read from disk now into memory the caller owns; the album
  /// keeps no copy.
  public func image(named name: String) async throws -> Data {
    guard let member = package.fileWrappers?[name], member.isRegularFile else {
      throw QuireError(
        .notFound, "The album has no image “\(name)”.",
        path: fileURL.appendingPathComponent(name).path)
    }
    return try await performAsynchronousFileAccess { try member.copyOfContents() }
  }

  /// Adds an image under `preferredName` (or a unique variant) and returns its name; undoable.
  @discardableResult
  public func addImage(_ data: Data, preferredName: String) throws -> String {
    let member = FileWrapper(regularFileWithContents: data)
    member.preferredFilename = preferredName
    let name = try package.addFileWrapper(member)
    undoManager.registerUndo(withTarget: self) { album in album.removeMember(member) }
    undoManager.setActionName("Add Image")
    return name
  }

  /// Removes the image `name`; undoable.
  public func removeImage(named name: String) throws {
    guard let member = package.fileWrappers?[name] else {
      throw QuireError(
        .notFound, "The album has no image “\(name)”.",
        path: fileURL.appendingPathComponent(name).path)
    }
    removeMember(member)
  }

  private func removeMember(_ member: FileWrapper) {
    package.removeFileWrapper(member)
    undoManager.registerUndo(withTarget: self) { album in
      _ = try? album.package.addFileWrapper(member)
    }
    undoManager.setActionName("Remove Image")
  }

  public override func load(fromContents contents: DocumentContents, ofType typeName: String?)
    throws
  {
    guard case .fileWrapper(let wrapper) = contents, wrapper.isDirectory else {
      throw QuireError(.wrongKind, "An album is a package (a folder), but this is a single file.")
    }
    package = wrapper
  }

  public override func contents(forType typeName: String) throws -> DocumentContents {
    .fileWrapper(package)
  }
}
