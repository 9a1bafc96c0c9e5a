import Foundation
import QuireCore

#if canImport(Glibc)
  import Glibc
#endif

/// Folders the agent makes in the synced folder for what it brings down. Each is made under a
/// temporary name (`.quire-sync-…`) and renamed into place, never over a name that appeared
/// meanwhile: its event then says it is the agent's own (``FolderEventFilter``), and a first
/// sync of a thousand folders asks for no scan. A folder someone else made first is used.
enum AgentFolders {
  /// Makes the folder at `path` (absolute) and every missing folder above it, through ``Sys``.
  ///
  /// - Throws: the `SystemCallError` of the step that failed, such as `EEXIST` when a file holds
  ///   one of the names.
  static func make(_ path: String) throws(SystemCallError) {
    var missing: [String] = []
    var folder = path
    while !folder.isEmpty, folder != "/", try !Sys.isFolder(folder) {
      missing.append(folder)
      folder = (folder as NSString).deletingLastPathComponent
    }
    for target in missing.reversed() {
      let parent = (target as NSString).deletingLastPathComponent
      let temporary = parent + "/" + FolderEventFilter.temporaryName()
      do {
        try Sys.mkdir(temporary)  // 0o777 less the umask, as any folder made here
        try Sys.renameNoReplace(temporary, target)
      } catch {
        try? Sys.rmdir(temporary)
        if [EINVAL, ENOSYS, EOPNOTSUPP].contains(error.errno) {
          // A file system without RENAME_NOREPLACE (NFS, some FUSE): the folder is made in
          // place (its event, a plain folder appearing, asks for no scan either).
          do { try Sys.mkdir(target) } catch {
            guard error.errno == EEXIST, try Sys.isFolder(target) else { throw error }
          }
          continue
        }
        // Made meanwhile by someone else: theirs is used. A file there is refused (EEXIST).
        guard error.errno == EEXIST, try Sys.isFolder(target) else { throw error }
      }
    }
  }
}
