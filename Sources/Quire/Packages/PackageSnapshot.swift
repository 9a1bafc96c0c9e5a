import Foundation

/// A whole, unchanging view of a document for as long as a piece of work runs: for a package,
/// the shared package lock is held throughout, so members read lazily come from the same
/// version as the names (no Quire save can be applied meanwhile).
enum PackageSnapshot {
  static func with<T>(_ path: String, _ body: (FileWrapper) throws -> T) throws -> T {
    let info: stat?
    do throws(SystemCallError) { info = try Sys.status(path, followLinks: true) } catch {
      throw QuireError.system(error, action: "read", path: path)
    }
    guard let info, info.isDirectory else {
      return try body(try FileWrapper(url: URL(fileURLWithPath: path)))
    }
    while true {
      let lock: PackageLock
      let interrupted: Bool
      do throws(SystemCallError) { lock = try PackageLock(path: path, exclusive: false) } catch {
        throw QuireError.system(error, action: "read", path: path)
      }
      do throws(SystemCallError) {
        interrupted = try Sys.status(path.appendingPathComponent(SaveJournal.fileName)) != nil
      } catch {
        lock.release()
        throw QuireError.system(error, action: "read", path: path)
      }
      if interrupted {
        lock.release()
        _ = try SaveRecovery.recoverPackage(at: URL(fileURLWithPath: path))
        continue
      }
      defer { lock.release() }
      let wrapper = FileWrapper(state: FileWrapper.State(content: .regularFile(Data())))
      let state = try PackageReader(options: [], callerHoldsLock: true).read(path: path)
      wrapper.adopt(state)
      return try body(wrapper)
    }
  }
}
