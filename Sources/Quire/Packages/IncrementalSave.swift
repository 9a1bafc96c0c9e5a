import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Saves a package wrapper back to the folder it was read from, writing only what changed.
///
/// Order of work, and why each fsync is there:
/// 1. Take the package lock exclusively and finish any interrupted save first.
/// 2. Stage every new item under a `.quire-stage-` name at the top of the package; the tree
///    writer fsyncs each staged file and folder.
/// 3. A save that is a single rename (or a single removal, or a single attribute change) is
///    atomic by itself: do it, then fsync the folders whose entries changed. Two fsyncs in all
///    for one changed member.
/// 4. Otherwise write the journal, fsync it, and fsync the package folder so the journal's name
///    is durable: the commit point. Apply it, fsync every folder it touched (the new names are
///    durable before the journal goes), unlink the journal and fsync the package folder (so a
///    stale journal can never be replayed), then delete the trash.
struct IncrementalSave {
  let root: FileWrapper
  let path: String
  let options: FileWrapper.WritingOptions

  func run() throws(QuireError) {
    let plan = try SavePlan(root: root)
    guard !plan.changes.isEmpty else {
      SaveReport.current?.record(package: path, members: [])
      return SaveCompletion.finish(plan, placed: [], options)
    }
    let lock: PackageLock
    do throws(SystemCallError) { lock = try PackageLock(path: path, exclusive: true) } catch {
      throw QuireError.system(error, action: "save", path: path)
    }
    defer { lock.release() }
    do throws(SystemCallError) {
      if try Sys.status(path.appendingPathComponent(SaveJournal.fileName)) != nil {
        _ = try SaveRecovery.recover(lockedPackage: lock.fd, path: path)
      }
    } catch {
      throw QuireError.system(error, action: "save", path: path)
    }

    let token = String(UInt64.random(in: 1...UInt64.max), radix: 36)
    var operations: [SaveJournal.Operation] = []
    var placed: [(path: [String], written: TreeWriter.Written)] = []
    var stages: [String] = []
    do throws(QuireError) {
      for (index, change) in plan.changes.enumerated() {
        let trash = "\(SaveJournal.trashPrefix)\(token)-\(index)"
        switch change {
        case .place(let memberPath, let wrapper):
          let stage = "\(SaveJournal.stagePrefix)\(token)-\(index)"
          stages.append(stage)
          let written = try TreeWriter().write(wrapper, to: path.appendingPathComponent(stage))
          placed.append((memberPath, written))
          operations.append(
            .place(path: memberPath.joined(separator: "/"), stage: stage, trash: trash))
        case .remove(let memberPath):
          operations.append(.remove(path: memberPath.joined(separator: "/"), trash: trash))
        case .attributes(let memberPath, _, let attributes):
          let time = attributes.modificationDate?.timespec
          operations.append(
            .attributes(
              path: memberPath.joined(separator: "/"), mode: attributes.posixPermissions,
              seconds: time?.tv_sec, nanoseconds: time?.tv_nsec))
        }
      }
    } catch {
      discard(stages)
      throw error
    }

    // Wrappers whose files are about to be deleted or replaced may still be held (an undo can
    // add them back): map their bytes now, which keeps them readable after the deletion.
    do throws(QuireError) {
      for wrapper in plan.removed { try wrapper.keepContentsInMemory() }
    } catch {
      discard(stages)
      throw error
    }
    let journal = SaveJournal(operations: operations)
    if operations.count == 1, try isAtomicAlone(operations[0]) {
      try applyAlone(operations[0], stages: stages, lock: lock)
    } else {
      try commit(journal, stages: stages)
      try apply(journal)
    }
    // A folder placed whole is reported with everything in it: each is the document's own.
    var members = operations.map(\.path)
    for (memberPath, written) in placed {
      Self.collect(written, under: memberPath.joined(separator: "/"), into: &members)
    }
    SaveReport.current?.record(package: path, members: members)
    SaveCompletion.finish(plan, placed: placed, options)
  }

  private static func collect(
    _ written: TreeWriter.Written, under path: String, into members: inout [String]
  ) {
    for child in written.children {
      let childPath = path + "/" + child.key
      members.append(childPath)
      collect(child.item, under: childPath, into: &members)
    }
  }

  private func isAtomicAlone(_ operation: SaveJournal.Operation) throws(QuireError) -> Bool {
    switch operation {
    case .remove: return true
    case .attributes(_, let mode, let seconds, _): return mode == nil || seconds == nil
    case .place(let member, let stage, _):
      do throws(SystemCallError) {
        guard let existing = try Sys.status(path.appendingPathComponent(member)) else {
          return true
        }
        let staged = try Sys.status(path.appendingPathComponent(stage))
        return !existing.isDirectory && staged?.isDirectory == false
      } catch {
        throw QuireError.system(error, action: "save", path: path.appendingPathComponent(member))
      }
    }
  }

  private func applyAlone(_ operation: SaveJournal.Operation, stages: [String], lock: PackageLock)
    throws(QuireError)
  {
    var touched: Set<String> = [path]
    do throws(SystemCallError) {
      if case .place(let member, let stage, _) = operation {
        // isAtomicAlone checked that no folder is in the way: one rename does it.
        let target = path.appendingPathComponent(member)
        try Sys.rename(path.appendingPathComponent(stage), target)
        touched.insert(target.deletingLastPathComponent)
      } else {
        try SaveJournal.apply(operation, root: path, touched: &touched)
      }
    } catch {
      discard(stages)
      throw QuireError.system(error, action: "save", path: path)
    }
    do throws(SystemCallError) {
      // The package folder is already open (it holds the lock): fsync it through that.
      for folder in touched {
        if folder == path { try Sys.fsync(lock.fd) } else { try Sys.fsyncDirectory(folder) }
      }
    } catch {
      throw QuireError.system(error, action: "save", path: path)
    }
    removeTrash(of: [operation])
  }

  private func commit(_ journal: SaveJournal, stages: [String]) throws(QuireError) {
    let journalPath = path.appendingPathComponent(SaveJournal.fileName)
    do throws(SystemCallError) {
      let fd = try Sys.open(journalPath, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
      defer { Sys.close(fd) }
      try Sys.write(fd, journal.encoded())
      try Sys.fsync(fd)
      try Sys.fsyncDirectory(path)
    } catch {
      try? Sys.unlink(journalPath)
      discard(stages)
      throw QuireError.system(error, action: "save", path: path)
    }
  }

  private func apply(_ journal: SaveJournal) throws(QuireError) {
    do throws(SystemCallError) {
      for folder in try journal.apply(root: path) { try Sys.fsyncDirectory(folder) }
      try Sys.unlink(path.appendingPathComponent(SaveJournal.fileName))
      try Sys.fsyncDirectory(path)
    } catch {
      var failure = QuireError.system(error, action: "finish saving", path: path)
      failure.message +=
        " The save was committed: it completes the next time the package is opened."
      throw failure
    }
    removeTrash(of: journal.operations)
  }

  /// Deletes replaced and removed items. A failure here loses nothing: the next reader of the
  /// package deletes leftover trash.
  private func removeTrash(of operations: [SaveJournal.Operation]) {
    for operation in operations {
      switch operation {
      case .place(_, _, let trash), .remove(_, let trash):
        try? Sys.removeTree(path.appendingPathComponent(trash))
      case .attributes: break
      }
    }
  }

  private func discard(_ stages: [String]) {
    for stage in stages { try? Sys.removeTree(path.appendingPathComponent(stage)) }
  }
}
