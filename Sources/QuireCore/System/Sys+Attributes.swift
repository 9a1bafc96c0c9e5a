import CQuireShims

#if canImport(Glibc)
  import Glibc
#endif

/// Extended attributes of a path itself (a link's own, not its target's), through the fault
/// hook like every other call.
extension Sys {
  /// The value of the attribute `name` of `path`, at most `limit` bytes; nil if it has none.
  package static func attribute(_ path: String, _ name: String, limit: Int = 256)
    throws(SystemCallError) -> [UInt8]?
  {
    try check("getxattr")
    var buffer = [UInt8](repeating: 0, count: limit)
    let count = cquire_lgetxattr(path, name, &buffer, buffer.count)
    if count >= 0 { return Array(buffer[0..<count]) }
    if cquire_errno() == ENODATA { return nil }
    throw failure("getxattr")
  }

  /// Sets the attribute `name` of `path` to `value`.
  package static func setAttribute(_ path: String, _ name: String, _ value: String)
    throws(SystemCallError)
  {
    try check("setxattr")
    if cquire_lsetxattr(path, name, value, value.utf8.count) != 0 { throw failure("setxattr") }
  }

  /// Removes the attribute `name` of `path`; one it does not have is fine.
  package static func removeAttribute(_ path: String, _ name: String) throws(SystemCallError) {
    try check("removexattr")
    if cquire_lremovexattr(path, name) != 0, cquire_errno() != ENODATA {
      throw failure("removexattr")
    }
  }
}
