import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Saves a single-file document (or a link) the safe way: write a temporary file beside it,
/// give it the old file's permissions and extended attributes, fsync it, rename it over the
/// old name, and fsync the folder so the rename itself survives a crash.
struct FlatFileSave {
  let wrapper: FileWrapper
  let path: String
  let options: FileWrapper.WritingOptions

  func run() throws(QuireError) {
    let folder = path.deletingLastPathComponent
    let name = path.lastPathComponent
    try FileName.validate(name, in: folder)
    let snapshot = wrapper.state.withLock { $0 }
    if snapshot.origin?.path == path {
      return try updateAttributesInPlace(snapshot)
    }
    let temporary = folder.appendingPathComponent(TemporaryName.forNewVersion(of: name))
    do throws(SystemCallError) {
      let existing = try Sys.status(path)
      if case .symbolicLink(let destination) = snapshot.content {
        try Sys.symlink(destination, at: temporary)
      } else {
        try writeFile(
          snapshot, to: temporary, replacing: existing?.isRegularFile == true ? existing : nil)
      }
      try Sys.rename(temporary, path)
      try Sys.fsyncDirectory(folder)
    } catch {
      try? Sys.unlink(temporary)
      throw QuireError.system(error, action: "save", path: path)
    }
    SaveCompletion.adopt(
      TreeWriter.Written(wrapper: wrapper, generation: snapshot.generation, children: []),
      in: DiskLocation(absolutePath: folder), name: name, options)
  }

  private func writeFile(
    _ snapshot: FileWrapper.State, to temporary: String, replacing existing: stat?
  )
    throws(SystemCallError)
  {
    let fd = try Sys.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o666)
    defer { Sys.close(fd) }
    switch snapshot.content {
    case .regularFile(let data?):
      try Sys.write(fd, data)
    case .regularFile(nil):
      if let origin = snapshot.origin?.path {
        let source = try Sys.open(origin, O_RDONLY | O_NOFOLLOW)
        defer { Sys.close(source) }
        try Sys.copy(from: source, to: fd, count: Int(try Sys.status(of: source).st_size))
      }
    default:
      throw SystemCallError(call: "open", errno: EISDIR)
    }
    if let mode = snapshot.attributes.posixPermissions {
      try Sys.chmod(fd, mode_t(mode))
    } else if let existing {
      try Sys.chmod(fd, existing.st_mode & 0o7777)
    }
    if existing != nil { try ExtendedAttributes.copy(from: path, to: fd) }
    try Sys.fsync(fd)
    if let date = snapshot.attributes.modificationDate {
      try Sys.setModificationTime(temporary, date.timespec)
    }
  }

  private func updateAttributesInPlace(_ snapshot: FileWrapper.State) throws(QuireError) {
    guard snapshot.attributesChanged else { return }
    do throws(SystemCallError) {
      if let mode = snapshot.attributes.posixPermissions, !snapshot.isSymbolicLink {
        try Sys.chmod(path, mode_t(mode))
      }
      if let date = snapshot.attributes.modificationDate {
        try Sys.setModificationTime(path, date.timespec)
      }
    } catch {
      throw QuireError.system(error, action: "save", path: path)
    }
    wrapper.state.withLock { state in
      if state.generation == snapshot.generation { state.attributesChanged = false }
    }
  }
}

extension FileWrapper.State {
  var isSymbolicLink: Bool { if case .symbolicLink = content { true } else { false } }
}
