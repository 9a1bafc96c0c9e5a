import Foundation
import ZIPFoundation

#if canImport(Glibc)
  import Glibc
#endif

extension PackageArchive {
  /// Imports the document in the ZIP archive at `archiveURL` into `folder`, under its own name
  /// (`Report.mydoc`), or a unique variant of it (`Report 2.mydoc`) if that name is taken, and
  /// returns where it went.
  ///
  /// Every entry is checked before anything is written; the document is built in a hidden folder
  /// inside `folder`, made durable, and moved into place with one rename, so a failed import
  /// leaves nothing behind.
  ///
  /// - Throws: ``QuireError`` with ``QuireError/Code-swift.struct/unsafeArchive``,
  ///   ``QuireError/Code-swift.struct/archiveTooLarge``, ``QuireError/Code-swift.struct/corruptArchive``
  ///   or ``QuireError/Code-swift.struct/invalidName`` for a bad archive, or the file-system error.
  @discardableResult
  public static func importArchive(
    _ archiveURL: URL, into folder: URL, limits: ArchiveLimits = .default, progress: Progress? = nil
  ) throws(QuireError) -> URL {
    let path = archiveURL.standardizedFileURL.path
    let destination = folder.standardizedFileURL.path
    let archive: Archive
    do {
      archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
    } catch {
      throw QuireError(
        .corruptArchive,
        "“\(path)” is not a ZIP archive, or it is damaged or cut short. Get a fresh copy of it.",
        path: path, cause: error)
    }
    let plan = try ArchivePlan(
      archive: archive, archiveName: path.lastPathComponent, limits: limits, path: path)
    TemporaryName.removeStale(in: destination, for: nil)
    let staging = destination.appendingPathComponent(TemporaryName.forImport())
    do throws(SystemCallError) { try Sys.mkdir(staging, mode: 0o700) } catch {
      throw QuireError.system(error, action: "import into", path: destination)
    }
    defer { try? Sys.removeTree(staging) }
    let built = staging.appendingPathComponent(plan.name)
    try ArchiveExtractor(
      archive: archive, plan: plan, root: built, archivePath: path, limits: limits,
      progress: progress
    )
    .run()
    return try publish(built, named: plan.name, in: destination, staging: staging)
  }

  /// Makes the imported document durable and moves it into `folder` under a free name.
  private static func publish(
    _ built: String, named name: String, in folder: String, staging: String
  )
    throws(QuireError) -> URL
  {
    do throws(SystemCallError) {
      let fd = try Sys.open(staging, O_RDONLY | O_DIRECTORY)
      defer { Sys.close(fd) }
      try Sys.syncFileSystem(fd)
      var taken: Set<String> = []
      while true {
        let candidate = FileName.unique(name) { taken.contains($0) }
        let target = folder.appendingPathComponent(candidate)
        do throws(SystemCallError) {
          try Sys.renameNoReplace(built, target)
          try Sys.fsyncDirectory(folder)
          return URL(fileURLWithPath: target)
        } catch  where error.errno == EEXIST {
          taken.insert(candidate)
        }
      }
    } catch {
      throw QuireError.system(error, action: "import into", path: folder)
    }
  }
}
