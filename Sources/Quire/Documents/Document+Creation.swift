import Foundation

extension Document {
  /// Creates a new document the way the document-based app samples do: `make` builds the
  /// document at a temporary location, it is saved there ``SaveOperation/forCreating`` and
  /// closed, then moved into `folder` as `name` — or a unique variant (`Document 2.mydoc`) if that
  /// is taken. Returns the final URL.
  public static func createDocument(
    named name: String, in folder: URL, make: (URL) -> Document
  ) async throws(QuireError) -> URL {
    try FileName.validate(name, in: folder.path)
    let scratch = FileManager.default.temporaryDirectory
      .appendingPathComponent("quire-new-\(UUID().uuidString)", isDirectory: true)
    do {
      try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    } catch {
      throw QuireError(
        .ioError, "Could not create a temporary folder for the new document.", cause: error)
    }
    defer { try? FileManager.default.removeItem(at: scratch) }
    let temporary = scratch.appendingPathComponent(name)
    let document = make(temporary)
    try await document.save(to: temporary, for: .forCreating)
    try await document.close()
    return try move(temporary, into: folder.standardizedFileURL, as: name)
  }

  /// Moves `item` into `folder` under `name` or the first free variant, never replacing anything.
  /// Across file systems it is copied to a hidden name first, then renamed into place.
  nonisolated static func move(_ item: URL, into folder: URL, as name: String) throws(QuireError)
    -> URL
  {
    var source = item.path
    var taken: Set<String> = []
    while true {
      let candidate = FileName.unique(name) { taken.contains($0) }
      let target = folder.appendingPathComponent(candidate).path
      do throws(SystemCallError) {
        try Sys.renameNoReplace(source, target)
        try Sys.fsyncDirectory(folder.path)
        return URL(fileURLWithPath: target)
      } catch  where error.errno == EEXIST {
        taken.insert(candidate)
      } catch  where error.errno == EXDEV {
        let staged = folder.appendingPathComponent(TemporaryName.forNewVersion(of: name))
        try FileWrapper(url: URL(fileURLWithPath: source), options: .immediate).write(to: staged)
        source = staged.path
      } catch {
        throw QuireError.system(error, action: "move the new document into", path: folder.path)
      }
    }
  }
}
