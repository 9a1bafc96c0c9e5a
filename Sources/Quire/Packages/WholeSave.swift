import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writes a whole wrapper to a new place: into a hidden temporary sibling first, then swapped
/// into place with one atomic rename (an exchange if something is there already), so readers
/// see the old item or the new one, never a half-written one.
struct WholeSave {
  let wrapper: FileWrapper
  let path: String
  let options: FileWrapper.WritingOptions
  /// Foundation's `originalContentsURL`: unchanged members read from below it are hard-linked.
  let originalContentsPath: String?

  func run() throws(QuireError) {
    let folder = path.deletingLastPathComponent
    let name = path.lastPathComponent
    try FileName.validate(name, in: folder)
    TemporaryName.removeStale(in: folder, for: name)
    let temporary = folder.appendingPathComponent(TemporaryName.forNewVersion(of: name))
    let written: TreeWriter.Written
    do throws(QuireError) {
      written = try TreeWriter(linkUnchangedBelow: originalContentsPath).write(
        wrapper, to: temporary)
      try publish(temporary)
    } catch {
      try? Sys.removeTree(temporary)
      throw error
    }
    SaveCompletion.adopt(written, in: DiskLocation(absolutePath: folder), name: name, options)
  }

  /// Moves the finished temporary item to `path` and makes the rename durable; an existing item
  /// is swapped out atomically (under its package lock, so no reader walks it mid-swap) and
  /// deleted afterwards.
  private func publish(_ temporary: String) throws(QuireError) {
    do throws(SystemCallError) {
      guard let existing = try Sys.status(path) else {
        try Sys.renameNoReplace(temporary, path)
        try Sys.fsyncDirectory(path.deletingLastPathComponent)
        return
      }
      let lock = existing.isDirectory ? try PackageLock(path: path, exclusive: true) : nil
      defer { lock?.release() }
      // The new item takes the old one's extended attributes (identity, tags), as a flat
      // safe-save does; then the swap publishes both at once.
      let fd = try Sys.open(temporary, O_RDONLY | O_NOFOLLOW)
      defer { Sys.close(fd) }
      try ExtendedAttributes.copy(from: path, to: fd)
      try Sys.fsync(fd)
      try Sys.exchange(temporary, path)
      try Sys.fsyncDirectory(path.deletingLastPathComponent)
    } catch {
      throw QuireError.system(error, action: "save", path: path)
    }
    try? Sys.removeTree(temporary)
  }
}
