import Foundation
import Quire
import QuireCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One placeholder of a first sync's page, chosen by
/// ``SyncAgent/placeNewPlaceholders(_:)``: the journal entry it settles,
/// its record, and where it goes.
struct NewPlaceholder: Sendable {
  /// The journal sequence of the entry that created the item.
  var sequence: Int64
  /// The item as the state records it once the placeholder is in place.
  var record: SyncedItem
  /// The folder it goes in, an absolute path.
  var folder: String
  /// Its absolute path (`.NAME.icloud` in `folder`).
  var target: String
  var placeholder: CloudPlaceholder

  /// A placeholder written and not yet in place.
  enum Staged: Sendable {
    /// An unnamed file (`O_TMPFILE`) in its folder, open until it is linked into place: no
    /// name to make and rename, and nothing left behind if the agent is killed.
    case unnamed(Int32)
    /// A file under a hidden temporary name beside its target (`.quire-sync-…`, which the
    /// agent removes at start if a crash left it), where the file system has no unnamed files
    /// or the page would hold too many open.
    case named(String)

    /// Forgets the file: closes it, or removes its temporary name.
    func discard() {
      switch self {
      case .unnamed(let fd): Sys.close(fd)
      case .named(let temporary): try? Sys.unlink(temporary)
      }
    }
  }

  /// Writes the placeholders of `files` in `range`, at most `unnamedLimit` of them as unnamed
  /// files and the rest under temporary names, and returns those written by index in `files`,
  /// and the first write that failed (its target and error), after which the run stops. One
  /// run of ``ParallelRuns``: it encodes with its own encoder.
  static func stage(_ files: [NewPlaceholder], _ range: Range<Int>, unnamedLimit: Int) -> (
    staged: [(index: Int, file: Staged)], failure: (target: String, error: any Error)?
  ) {
    let encoder = JSONEncoder()
    var staged: [(index: Int, file: Staged)] = []
    var unnamedLeft = unnamedLimit
    for index in range {
      let file = files[index]
      guard let bytes = try? encoder.encode(file.placeholder) else { continue }
      do {
        if unnamedLeft > 0, linking.load(ordering: .relaxed) {
          if let fd = try openUnnamed(in: file.folder) {
            unnamedLeft -= 1
            staged.append((index, .unnamed(fd)))
            try Sys.write(fd, bytes)
            continue
          }
          unnamedLeft = 0  // the file system has none, or the process holds all it may open
        }
        let temporary = file.folder + "/.quire-sync-" + UUID().uuidString
        let fd = try Sys.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
        staged.append((index, .named(temporary)))
        defer { Sys.close(fd) }
        try Sys.write(fd, bytes)
      } catch {
        return (staged, (file.target, error))
      }
    }
    return (staged, nil)
  }

  /// Whether unnamed files can be linked into place in this process: linking goes through
  /// `/proc/self/fd`, which a container may not mount. The first failure other than a name
  /// already taken turns them off, and the pages after it use temporary names.
  private static let linking = Atomic<Bool>(true)

  /// An unnamed file in `folder` for a placeholder, or nil where the file system has none or
  /// the process has as many files open as it may (other agents of shares may be placing too):
  /// the placeholder then takes a temporary name, which is closed at once.
  private static func openUnnamed(in folder: String) throws -> Int32? {
    do {
      return try Sys.openUnnamedIfSupported(in: folder, mode: 0o644)
    } catch where [EMFILE, ENFILE].contains(error.errno) {
      return nil
    }
  }

  /// Puts the `staged` file into place as `file`, never over another name, and says whether it
  /// is there; either way the staged file is used up. A placeholder of this very item and
  /// revision already there (placed by a pull that a crash stopped before its record) counts
  /// as placed; anything else there is left to the one-by-one path.
  static func place(_ staged: Staged, as file: NewPlaceholder) -> Bool {
    switch staged {
    case .unnamed(let fd):
      defer { Sys.close(fd) }
      do {
        try Sys.link(openFile: fd, to: file.target)
        return true
      } catch where error.errno == EEXIST {
        return isPlaced(file)
      } catch {
        linking.store(false, ordering: .relaxed)
        return false
      }
    case .named(let temporary):
      if (try? Sys.renameNoReplace(temporary, file.target)) != nil { return true }
      defer { try? Sys.unlink(temporary) }
      return isPlaced(file)
    }
  }

  /// Whether the placeholder of `file`'s item and revision is at its target already.
  private static func isPlaced(_ file: NewPlaceholder) -> Bool {
    guard let existing = try? CloudPlaceholder.read(at: URL(fileURLWithPath: file.target))
    else { return false }
    return existing.identity == file.record.id && existing.revision == file.record.revision
  }
}
