#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension QuireError {
  /// Maps a failed system call to a Quire error whose message names `path`, says what Quire was
  /// doing (`action`, such as "save"), and what the user can do about it.
  package static func system(
    _ error: SystemCallError, action: String, path: String,
    file: String = #fileID, line: Int = #line
  ) -> QuireError {
    let (code, advice) = classify(error.errno)
    let message = "Could not \(action) “\(path)”: \(error.reason.lowercased()). \(advice)"
    return QuireError(code, message, path: path, cause: error, file: file, line: line)
  }

  private static func classify(_ errno: Int32) -> (Code, String) {
    switch errno {
    case ENOENT: (.notFound, "Check that it still exists; it may have been moved or deleted.")
    case EEXIST, ENOTEMPTY: (.alreadyExists, "Choose another name or remove the existing item.")
    case EACCES, EPERM: (.permissionDenied, "Check the permissions of the item and its folder.")
    case ENOSPC, EDQUOT: (.noSpace, "Free some space and try again; nothing was lost.")
    case EROFS: (.readOnlyFileSystem, "Save it somewhere writable instead.")
    case ENAMETOOLONG: (.invalidName, "Use a shorter name.")
    case ENOTDIR, EISDIR, ELOOP: (.wrongKind, "A file and a folder were mixed up; check the path.")
    default: (.ioError, "The device reported an error; check the disk and try again.")
    }
  }
}
