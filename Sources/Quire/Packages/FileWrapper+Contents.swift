import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension FileWrapper {
  /// The contents of a regular-file wrapper, or nil for other kinds or if they cannot be read.
  ///
  /// A wrapper read from disk maps its file when first asked (unless read with
  /// ``ReadingOptions/withoutMapping``), so a large member costs no memory until its bytes are
  /// touched. Use ``contents()`` to learn why reading failed.
  public var regularFileContents: Data? { try? contents() }

  /// The contents of a regular-file wrapper, reading them from disk on first use.
  ///
  /// - Throws: ``QuireError/Code-swift.struct/wrongKind`` for directories and links, or the
  ///   error of reading the member's file (for example ``QuireError/Code-swift.struct/notFound``
  ///   if it was deleted behind Quire's back).
  public func contents() throws(QuireError) -> Data {
    let (loaded, origin, maps, isInCloud) = try state.withLock { state throws(QuireError) in
      guard case .regularFile(let data) = state.content else {
        throw QuireError(
          .wrongKind, "Only a regular-file wrapper has contents.", path: state.origin?.path)
      }
      return (data, state.origin, state.mapsContents, state.isInCloud)
    }
    if let loaded { return loaded }
    guard let origin else {
      throw QuireError(
        .internalError, "A regular-file wrapper has neither contents nor a file on disk.")
    }
    let path = origin.path
    if isInCloud && access(path, F_OK) != 0 {
      // A member in the cloud: a coordinated read of it asks the folder's provider for it.
      try FileCoordinator().startDownloadingItem(at: URL(fileURLWithPath: path))
    }
    let data: Data
    do throws(SystemCallError) {
      data = try Self.load(path: path, mapping: maps)
    } catch {
      throw QuireError.system(error, action: "read", path: path)
    }
    return state.withLock { state in
      state.isInCloud = false
      if case .regularFile(let current?) = state.content { return current }
      state.content = .regularFile(data)
      return data
    }
  }

  /// Whether this member's bytes are in the cloud, not on this device: reading its contents
  /// downloads it first (see ``CloudPlaceholder``). False once read, and for anything else.
  public var isInCloud: Bool {
    state.withLock { state in
      guard state.isInCloud, let path = state.origin?.path else { return false }
      return access(path, F_OK) != 0
    }
  }

  /// Releases the bytes of a regular-file wrapper that are also on disk; they are mapped again
  /// when next asked for. Contents that exist only in memory (not yet saved) are kept.
  public func discardContents() {
    state.withLock { state in
      guard case .regularFile(.some) = state.content, state.origin != nil else { return }
      state.content = .regularFile(nil)
    }
  }

  /// The contents copied into memory and released from the wrapper: for bytes a caller keeps,
  /// which must not depend on the file (a mapped file truncated by another program would crash
  /// the reader).
  public func copyOfContents() throws(QuireError) -> Data {
    let wasLoaded = hasLoadedContents
    let copy = try contents().withUnsafeBytes { Data($0) }
    if !wasLoaded { discardContents() }
    return copy
  }

  /// Whether the bytes of a regular-file wrapper are in memory (or mapped) right now.
  public var hasLoadedContents: Bool {
    state.withLock { if case .regularFile(.some) = $0.content { true } else { false } }
  }

  /// Files smaller than this are read even when mapping is allowed: one `read` of a few pages
  /// costs less than `mmap`, its page faults and `munmap`, and saves nothing in memory.
  static let smallestMapped = 64 << 10

  /// Reads a file's bytes, mapped read-only (so untouched pages cost no memory) or copied.
  static func load(path: String, mapping: Bool) throws(SystemCallError) -> Data {
    let fd = try Sys.open(path, O_RDONLY | O_NOFOLLOW)
    defer { Sys.close(fd) }
    let size = Int(try Sys.status(of: fd).st_size)
    if size == 0 { return Data() }
    guard mapping, size >= smallestMapped else { return try Sys.readAll(fd, size: size) }
    let pointer = try Sys.map(fd, size: size)
    return Data(
      bytesNoCopy: pointer, count: size,
      deallocator: .custom { pointer, size in _ = munmap(pointer, size) })
  }
}
