import Foundation
import Quire
import QuireCore

#if canImport(Glibc)
  import Glibc
#endif

/// One placeholder of a first sync's page, chosen by
/// ``SyncAgent/placeNewPlaceholders(_:unsynced:prefetched:)``: the journal entry it settles,
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

  /// Writes the placeholders of `files` in `range`, each under a hidden temporary name beside
  /// its target (`.quire-sync-…`), and returns those written by index in `files`, and the
  /// first write that failed (its target and error), after which the run stops. One run of
  /// ``ParallelRuns``: it encodes with its own encoder.
  static func stage(_ files: [NewPlaceholder], _ range: Range<Int>) -> (
    staged: [(index: Int, temporary: String)], failure: (target: String, error: any Error)?
  ) {
    let encoder = JSONEncoder()
    var staged: [(index: Int, temporary: String)] = []
    for index in range {
      let file = files[index]
      guard let bytes = try? encoder.encode(file.placeholder) else { continue }
      let temporary = file.folder + "/.quire-sync-" + UUID().uuidString
      do {
        let fd = try Sys.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
        staged.append((index, temporary))
        defer { Sys.close(fd) }
        try Sys.write(fd, bytes)
      } catch {
        return (staged, (file.target, error))
      }
    }
    return (staged, nil)
  }

  /// Renames the staged `temporary` into place as `file`, never over another name. A
  /// placeholder of this very item and revision already there (placed by a pull that a crash
  /// stopped before its record) counts as placed, and the temporary goes; anything else there
  /// is left to the one-by-one path.
  static func place(_ temporary: String, as file: NewPlaceholder) -> Bool {
    if (try? Sys.renameNoReplace(temporary, file.target)) != nil { return true }
    guard
      let existing = try? CloudPlaceholder.read(at: URL(fileURLWithPath: file.target)),
      existing.identity == file.record.id, existing.revision == file.record.revision,
      (try? Sys.unlink(temporary)) != nil
    else { return false }
    return true
  }
}
