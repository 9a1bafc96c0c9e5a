#if canImport(Glibc)
  import Glibc
#endif

/// Turns raw inotify events into ``FileEvent``s: resolves watch descriptors to paths, pairs the
/// two halves of a move by cookie, turns unpaired halves into deletions and creations, and
/// coalesces bursts. Pure, so it is tested without the kernel.
struct InotifyTranslator {
  struct RawEvent {
    var descriptor: Int32
    var mask: UInt32
    var cookie: UInt32
    var name: String
  }

  /// What the monitor must do besides reporting events.
  enum Action: Hashable {
    /// Watch this folder and everything inside it, reporting the contents of each folder that
    /// was not watched before (they may predate the watch).
    case watch(String)
    /// Stop tracking the folders at and below this path.
    case forget(String)
  }

  let root: String
  private(set) var paths: [Int32: String] = [:]
  /// Halves of moves waiting for their other half: where the item was, and the index of the
  /// `deleted` event standing in for it until the other half turns it into `moved`.
  private var pendingMoves: [UInt32: (path: String, isDirectory: Bool, index: Int)] = [:]
  private(set) var events: [FileEvent] = []
  private(set) var actions: [Action] = []

  init(root: String) { self.root = root }

  /// The folders that moves waiting for their other half left, by the kernel's cookie.
  var unpairedMoves: [(cookie: UInt32, folder: String)] {
    pendingMoves.map { cookie, move in
      (cookie, String(move.path[..<(move.path.lastIndex(of: "/") ?? move.path.endIndex)]))
    }
  }

  mutating func watched(_ descriptor: Int32, path: String) { paths[descriptor] = path }

  /// Stops tracking the folders at and below `path`; returns their descriptors.
  mutating func forget(_ path: String) -> Set<Int32> {
    var gone: Set<Int32> = []
    for (descriptor, watched) in paths where watched == path || watched.hasPrefix(path + "/") {
      gone.insert(descriptor)
      paths[descriptor] = nil
    }
    return gone
  }

  mutating func renameWatches(from old: String, to new: String) {
    for (descriptor, path) in paths where path == old || path.hasPrefix(old + "/") {
      paths[descriptor] = new + path.dropFirst(old.count)
    }
  }

  /// A folder moved inside the tree keeps its watches under the new path, and its destination is
  /// always walked again (the walk reports only what it newly watches). The walk is what makes a
  /// move safe whatever else the batch held: a subfolder created just before the move, whose
  /// watch was asked for under the old path; a staging folder renamed into place before its
  /// watch was made; and a rename-exchange, whose two halves each rename the other's watches,
  /// so that only the walk of both names puts every watch back under its own path.
  private mutating func followMovedFolder(from old: String, to new: String) {
    renameWatches(from: old, to: new)
    // Watches asked for under the old path stay asked for: in an exchange, the other tree is
    // there now; otherwise they find nothing and are skipped.
    actions.removeAll { $0 == .watch(new) }
    actions.append(.watch(new))
  }

  mutating func translate(_ event: RawEvent) {
    let mask = event.mask
    if mask & UInt32(IN_Q_OVERFLOW) != 0 {
      // Events were lost, folders created among them too: the whole tree is walked again.
      events.append(FileEvent(.rescan, path: root, isDirectory: true))
      actions.removeAll { $0 == .watch(root) }
      actions.append(.watch(root))
      return
    }
    if mask & UInt32(IN_IGNORED) != 0 {
      paths[event.descriptor] = nil
      return
    }
    guard let folder = paths[event.descriptor] else { return }
    let path = event.name.isEmpty ? folder : folder + "/" + event.name
    let isDirectory = mask & UInt32(IN_ISDIR) != 0
    if mask & UInt32(IN_MOVED_FROM) != 0 {
      pendingMoves[event.cookie] = (path, isDirectory, events.count)
      events.append(FileEvent(.deleted, path: path, isDirectory: isDirectory))
    } else if mask & UInt32(IN_MOVED_TO) != 0 {
      if let from = pendingMoves.removeValue(forKey: event.cookie) {
        events[from.index] = FileEvent(
          .moved(from: from.path), path: path, isDirectory: isDirectory)
        // Events later in this batch already name the folder's new path.
        if isDirectory { followMovedFolder(from: from.path, to: path) }
      } else {
        events.append(FileEvent(.created, path: path, isDirectory: isDirectory))
        if isDirectory { actions.append(.watch(path)) }
      }
    } else if mask & UInt32(IN_CREATE) != 0 {
      events.append(FileEvent(.created, path: path, isDirectory: isDirectory))
      if isDirectory { actions.append(.watch(path)) }
    } else if mask & UInt32(IN_DELETE) != 0 {
      events.append(FileEvent(.deleted, path: path, isDirectory: isDirectory))
    } else if mask & UInt32(IN_MODIFY | IN_CLOSE_WRITE) != 0 {
      events.append(FileEvent(.modified, path: path, isDirectory: isDirectory))
    } else if mask & UInt32(IN_ATTRIB) != 0 {
      events.append(FileEvent(.attributesChanged, path: path, isDirectory: isDirectory))
    } else if mask & UInt32(IN_DELETE_SELF) != 0, event.name.isEmpty, folder == root {
      events.append(FileEvent(.deleted, path: root, isDirectory: true))
    }
  }

  /// Adds events found by scanning a folder that appeared (its contents may predate the watch).
  mutating func discovered(_ path: String, isDirectory: Bool) {
    events.append(FileEvent(.created, path: path, isDirectory: isDirectory))
  }

  /// The actions the events so far call for, handed over once.
  mutating func takeActions() -> [Action] {
    defer { actions.removeAll() }
    return actions
  }

  /// Ends a batch: moves whose other half never came left or entered the tree; repeated events
  /// collapse (a write burst is one `modified`; `modified` right after `created` adds nothing).
  ///
  /// `destination` names where a move whose other half this translator did not see went, when
  /// another watch of the process saw it arrive (the cookie is the kernel's pairing of the two
  /// halves); such a move is reported as a move rather than a deletion.
  mutating func flush(destination: (UInt32) -> String? = { _ in nil }) -> (
    events: [FileEvent], actions: [Action]
  ) {
    let earlier = takeActions()
    for (cookie, move) in pendingMoves {
      if let target = destination(cookie) {
        events[move.index] = FileEvent(
          .moved(from: move.path), path: target, isDirectory: move.isDirectory)
      }
      if move.isDirectory { actions.append(.forget(move.path)) }
    }
    pendingMoves.removeAll()
    var result: [FileEvent] = []
    var lastKind: [String: FileEvent.Kind] = [:]
    for event in events {
      switch (lastKind[event.path], event.kind) {
      case (.modified?, .modified), (.created?, .modified),
        (.attributesChanged?, .attributesChanged),
        (.created?, .attributesChanged), (.created?, .created):
        continue
      default:
        result.append(event)
        lastKind[event.path] = event.kind
      }
    }
    let output = (result, earlier + actions)
    events.removeAll()
    actions.removeAll()
    return output
  }
}
