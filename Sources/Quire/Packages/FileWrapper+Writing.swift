import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension FileWrapper {
  /// Writes the wrapper to `url`.
  ///
  /// - A package written back to the folder it was read from (or last written to) is saved
  ///   incrementally: only members that changed are written, unchanged members are neither
  ///   copied nor read, and the save is atomic as a whole.
  /// - Anything else is written in full to a hidden temporary sibling and swapped into place
  ///   atomically. With `originalContentsURL`, unchanged members read from there are hard-linked
  ///   instead of copied, as in Foundation.
  /// - A regular file is written to a temporary file, fsynced and renamed over the old one,
  ///   keeping the old file's permissions and extended attributes.
  ///
  /// After a crash at any point the destination holds exactly the old or exactly the new
  /// contents. If the write fails, the error names the path and the cause, and the old contents
  /// are untouched.
  public func write(
    to url: URL, options: WritingOptions = [], originalContentsURL: URL? = nil
  ) throws(QuireError) {
    let path = url.standardizedFileURL.path
    let originalPath = originalContentsURL?.standardizedFileURL.path
    guard isDirectory else {
      return try FlatFileSave(wrapper: self, path: path, options: options).run()
    }
    let existing: stat?
    do throws(SystemCallError) { existing = try Sys.status(path) } catch {
      throw QuireError.system(error, action: "save", path: path)
    }
    if originPath == path, originalPath == nil || originalPath == path,
      existing?.isDirectory == true
    {
      try IncrementalSave(root: self, path: path, options: options).run()
    } else {
      try WholeSave(wrapper: self, path: path, options: options, originalContentsPath: originalPath)
        .run()
    }
    if options.contains(.withNameUpdating) { filename = path.lastPathComponent }
  }
}
