import CQuireShims

#if canImport(Glibc)
  import Glibc
#endif

/// Extended attributes (`user.*` and others the user may set), copied onto a replacement file so
/// that a safe-save keeps tags, identities and other metadata of the file it replaces.
enum ExtendedAttributes {
  /// Copies every extended attribute of the file at `source` onto the open file `destination`.
  /// File systems without extended attributes are not an error.
  static func copy(from source: String, to destination: Int32) throws(SystemCallError) {
    try Sys.check("listxattr")
    let size = cquire_llistxattr(source, nil, 0)
    if size < 0 {
      let failure = Sys.failure("listxattr")
      if failure.errno == ENOTSUP || failure.errno == ENOENT { return }
      throw failure
    }
    if size == 0 { return }
    var names = [CChar](repeating: 0, count: size)
    let listed = cquire_llistxattr(source, &names, size)
    if listed < 0 { throw Sys.failure("listxattr") }
    var start = 0
    while start < listed {
      let name = names.withUnsafeBufferPointer { String(cString: $0.baseAddress! + start) }
      start += name.utf8.count + 1
      let valueSize = cquire_lgetxattr(source, name, nil, 0)
      if valueSize < 0 { continue }  // vanished or not readable: nothing to keep
      var value = [UInt8](repeating: 0, count: valueSize)
      let read = cquire_lgetxattr(source, name, &value, valueSize)
      if read < 0 { continue }
      try Sys.check("fsetxattr")
      if cquire_fsetxattr(destination, name, value, read) != 0 {
        let failure = Sys.failure("fsetxattr")
        if failure.errno == ENOTSUP || failure.errno == EPERM { continue }
        throw failure
      }
    }
  }
}
