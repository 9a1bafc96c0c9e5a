import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writes a wrapper and everything below it as new items at a path that does not exist yet.
///
/// fsync discipline: every regular file is fsynced before its descriptor is closed, and every
/// folder is fsynced after its last entry is created, so once the caller fsyncs the folder
/// holding the new item, the whole subtree is durable and can be published by a rename.
struct TreeWriter {
  /// When set, unchanged regular files read from below this path are hard-linked rather than
  /// copied (Foundation's `originalContentsURL` behaviour).
  var linkUnchangedBelow: String?

  /// What was written for one wrapper, with the wrapper's generation at the time, so that after
  /// the save only the changes that were written are marked saved.
  struct Written {
    var wrapper: FileWrapper
    var generation: UInt64
    var children: [WrittenChild]
  }

  struct WrittenChild {
    var key: String
    var item: Written
  }

  func write(_ wrapper: FileWrapper, to path: String) throws(QuireError) -> Written {
    let snapshot = wrapper.state.withLock { $0 }
    var children: [WrittenChild] = []
    switch snapshot.content {
    case .regularFile(let data):
      try Self.system(path) { () throws(SystemCallError) in
        try writeFile(data, snapshot: snapshot, to: path)
      }
    case .symbolicLink(let destination):
      try Self.system(path) { () throws(SystemCallError) in
        try Sys.symlink(destination, at: path)
        if let date = snapshot.attributes.modificationDate {
          try Sys.setModificationTime(path, date.timespec)
        }
      }
    case .directory(let directory):
      try Self.system(path) { () throws(SystemCallError) in try Sys.mkdir(path) }
      children.reserveCapacity(directory.children.count)
      for (key, child) in directory.children {
        try FileName.validate(key, in: path)
        children.append(
          WrittenChild(key: key, item: try write(child, to: path.appendingPathComponent(key))))
      }
      try Self.system(path) { () throws(SystemCallError) in
        if let mode = snapshot.attributes.posixPermissions { try Sys.chmod(path, mode_t(mode)) }
        try Sys.fsyncDirectory(path)
        if let date = snapshot.attributes.modificationDate {
          try Sys.setModificationTime(path, date.timespec)
        }
      }
    }
    return Written(wrapper: wrapper, generation: snapshot.generation, children: children)
  }

  private static func system(_ path: String, _ body: () throws(SystemCallError) -> Void)
    throws(QuireError)
  {
    do throws(SystemCallError) { try body() } catch {
      throw QuireError.system(error, action: "save", path: path)
    }
  }

  private func writeFile(_ data: Data?, snapshot: FileWrapper.State, to path: String)
    throws(SystemCallError)
  {
    if let prefix = linkUnchangedBelow, let origin = snapshot.origin?.path,
      !snapshot.attributesChanged, origin.hasPrefix(prefix + "/")
    {
      try Sys.link(origin, path)
      return
    }
    let fd = try Sys.open(path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o666)
    defer { Sys.close(fd) }
    if let data {
      try Sys.write(fd, data)
    } else if let origin = snapshot.origin?.path {
      let source = try Sys.open(origin, O_RDONLY | O_NOFOLLOW)
      defer { Sys.close(source) }
      try Sys.copy(from: source, to: fd, count: Int(try Sys.status(of: source).st_size))
    }
    if let mode = snapshot.attributes.posixPermissions { try Sys.chmod(fd, mode_t(mode)) }
    try Sys.fsync(fd)
    if let date = snapshot.attributes.modificationDate {
      try Sys.setModificationTime(path, date.timespec)
    }
  }
}
