import Foundation
import ZIPFoundation

#if canImport(Glibc)
  import Glibc
#endif

extension PackageArchive {
  /// Writes the document at `url` (a package, a folder or a single file) into a new ZIP archive at
  /// `archiveURL`. The archive appears only when complete; an existing file there is replaced.
  ///
  /// The package is read under its shared lock, so the archive holds one whole version even while
  /// another process saves it.
  public static func export(_ url: URL, to archiveURL: URL, progress: Progress? = nil)
    throws(QuireError)
  {
    let source = url.standardizedFileURL.path
    let destination = archiveURL.standardizedFileURL.path
    let folder = destination.deletingLastPathComponent
    let temporary = folder.appendingPathComponent(
      TemporaryName.forNewVersion(of: destination.lastPathComponent)
    )
    do {
      try PackageSnapshot.with(source) { root in
        try write(root, named: source.lastPathComponent, to: temporary, progress)
      }
    } catch let error as QuireError {
      try? Sys.unlink(temporary)
      throw error
    } catch {
      try? Sys.unlink(temporary)
      throw QuireError(
        .ioError,
        "Could not write the archive “\(destination)”: \(error). Check the folder and try again.",
        path: destination, cause: error)
    }
    do throws(SystemCallError) {
      let fd = try Sys.open(temporary, O_RDONLY)
      defer { Sys.close(fd) }
      try Sys.fsync(fd)
      try Sys.rename(temporary, destination)
      try Sys.fsyncDirectory(folder)
    } catch {
      try? Sys.unlink(temporary)
      throw QuireError.system(error, action: "write the archive", path: destination)
    }
  }

  private static func write(
    _ root: FileWrapper, named name: String, to temporary: String, _ progress: Progress?
  ) throws {
    var writer = try ArchiveWriter(path: temporary)
    var entries: [(path: String, wrapper: FileWrapper)] = []
    collect(root, path: name, into: &entries)
    let total = entries.reduce(Int64(0)) { $0 + ($1.wrapper.fileAttributes.size ?? 0) }
    var done: Int64 = 0
    for (path, wrapper) in entries {
      try add(wrapper, at: path, to: &writer)
      if wrapper.isRegularFile { done += wrapper.fileAttributes.size ?? 0 }
      progress?(done, total)
    }
    try writer.finish()
  }

  /// Lists the wrapper tree depth-first, folders before their contents, names sorted.
  private static func collect(
    _ wrapper: FileWrapper, path: String, into entries: inout [(path: String, wrapper: FileWrapper)]
  ) {
    entries.append((path, wrapper))
    guard let children = wrapper.fileWrappers else { return }
    for key in children.keys.sorted() {
      collect(children[key]!, path: path + "/" + key, into: &entries)
    }
  }

  private static func add(_ wrapper: FileWrapper, at path: String, to writer: inout ArchiveWriter)
    throws
  {
    let attributes = wrapper.fileAttributes
    let date = attributes.modificationDate ?? Date()
    if wrapper.isDirectory {
      try writer.addDirectory(path, mode: attributes.posixPermissions ?? 0o755, date: date)
    } else if let destination = wrapper.symbolicLinkDestination {
      try writer.addSymbolicLink(path, destination: destination, date: date)
    } else {
      let contents = try wrapper.contents()
      try writer.addFile(
        path, contents: contents, mode: attributes.posixPermissions ?? 0o644, date: date)
      wrapper.discardContents()
    }
  }
}
