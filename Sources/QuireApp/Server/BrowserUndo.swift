import Foundation
import Quire
import Synchronization

/// The browser's Undo and Redo, kept by the app in an ``UndoManager`` as Finder keeps its own:
/// renames, moves, copies, moving to the Trash and putting back.
///
/// The page names each operation it carries out with a `step`; every request of that operation
/// (one per item) files the inverse of what it did under it, so one ``undo()`` takes back the
/// whole operation, however many requests it took. The steps outlive the page (a reload, a
/// second tab) and end with the app.
///
/// The undo manager keeps the steps on the main actor, but never does their file work there: a
/// coordinated move waits for the open documents' presenters, which answer on the main actor
/// (and a Trash on another file system copies). So an undo runs in two phases: on the main
/// actor, the undo manager replays the step, and each action only hands over its inverse and
/// registers, for the other stack, a slot its own inverse will fill; then, off the main actor,
/// ``carryOut(_:)`` does the file work and fills the slots. An inverse that no longer applies
/// (the item went elsewhere since) fails with its error and leaves its slot empty (a redo of it
/// does nothing); the others of the step are still carried out.
@MainActor
final class BrowserUndo {
  /// Where the inverse of one carried-out inverse goes, once the file work is done.
  final class Slot: Sendable {
    let inverse: Mutex<Inverse?>
    init(_ inverse: Inverse?) { self.inverse = Mutex(inverse) }
  }

  /// The file work of one undo or redo: the inverses to carry out, each with the slot its own
  /// inverse goes to, and where the items go.
  struct Work: Sendable {
    var steps: [(inverse: Inverse, slot: Slot)]
    let library: LibraryFolder
    let trash: Trash
  }

  /// What takes back one item's part of an operation.
  enum Inverse: Equatable, Sendable {
    /// Renames the item at the URL back to the name.
    case rename(URL, to: String)
    /// Moves the item at the URL back into the folder.
    case move(URL, into: URL)
    /// Moves the item at the URL to the Trash (the inverse of a copy or a put back).
    case trash(URL)
    /// Puts back from the Trash the entry of this name (the inverse of moving to the Trash).
    case restore(trashedName: String)
  }

  /// What an undo or a redo did.
  struct Outcome: Encodable, Equatable {
    /// The library paths of the items where the undo or redo left them (to select them).
    var paths: [String]
    /// What the next undo would take back ("Move"), or "".
    var undo: String
    /// What the next redo would do again, or "".
    var redo: String
  }

  let undoManager = UndoManager()
  private let library: LibraryFolder
  private let trash: Trash
  private var openStep: String?
  /// What the undo manager's actions handed over during the current replay.
  private var handedOver: [(inverse: Inverse, slot: Slot)] = []

  /// Undo for the browser of `library`, whose items go to `trash`, keeping the last `levels`
  /// operations.
  init(library: LibraryFolder, trash: Trash = .home, levels: Int = 100) {
    self.library = library
    self.trash = trash
    undoManager.groupsByEvent = false
    undoManager.levelsOfUndo = levels
  }

  /// Files `inverse` under the page's operation `step`, named `actionName` ("Move"): a new
  /// step closes the one before.
  func record(_ inverse: Inverse, step: String, actionName: String) {
    if openStep != step {
      closeStep()
      undoManager.beginUndoGrouping()
      openStep = step
    }
    register(inverse)
    undoManager.setActionName(actionName)
  }

  /// What the next undo and redo would do, by name.
  var state: Outcome {
    Outcome(paths: [], undo: undoManager.undoActionName, redo: undoManager.redoActionName)
  }

  /// Replays the last operation's step, or, with `redo`, the last one taken back, in the undo
  /// manager; answers the file work to do, off the main actor, with ``carryOut(_:)``.
  func replay(redo: Bool = false) -> Work {
    closeStep()
    handedOver = []
    if redo { undoManager.redo() } else { undoManager.undo() }
    defer { handedOver = [] }
    return Work(steps: handedOver, library: library, trash: trash)
  }

  /// Takes back the last operation, or, with `redo`, does the last one taken back again.
  ///
  /// - Throws: the first inverse's error when one of them no longer applies; the rest of the
  ///   step was carried out, and nothing of it is left to undo.
  nonisolated func undo(redo: Bool = false) async throws(QuireError) -> Outcome {
    let work = await replay(redo: redo)
    let paths = try Self.carryOut(work)
    var outcome = await state
    outcome.paths = paths
    return outcome
  }

  private func closeStep() {
    guard openStep != nil else { return }
    undoManager.endUndoGrouping()
    openStep = nil
  }

  private func register(_ inverse: Inverse) {
    register(Slot(inverse))
  }

  /// Registers, for the other stack, handing over what `slot` holds when it is replayed (an
  /// empty slot, whose inverse failed, hands over nothing).
  private func register(_ slot: Slot) {
    undoManager.registerUndo(withTarget: self) { undo in
      guard let inverse = slot.inverse.withLock({ $0 }) else { return }
      let next = Slot(nil)
      undo.handedOver.append((inverse, next))
      undo.register(next)
    }
  }

  /// Does `work`'s file work, filling each slot with what takes it back; answers where the
  /// items are now, relative to the library.
  ///
  /// - Throws: the first error, once every inverse was tried.
  nonisolated static func carryOut(_ work: Work) throws(QuireError) -> [String] {
    var failure: QuireError?
    var paths: [String] = []
    for (inverse, slot) in work.steps {
      do {
        let (url, next) = try apply(inverse, library: work.library, trash: work.trash)
        slot.inverse.withLock { $0 = next }
        paths.append(work.library.relative(url))
      } catch {
        failure = failure ?? error
      }
    }
    if let failure { throw failure }
    return paths
  }

  /// Carries out `inverse`; answers where the item is now and what takes that back.
  nonisolated private static func apply(
    _ inverse: Inverse, library: LibraryFolder, trash: Trash
  ) throws(QuireError) -> (URL, Inverse) {
    switch inverse {
    case .rename(let url, let name):
      try present(url, in: library)
      let renamed = try DocumentFiles.rename(url, to: name)
      return (renamed, .rename(renamed, to: url.lastPathComponent))
    case .move(let url, let folder):
      try present(url, in: library)
      let moved = try DocumentFiles.move(url, into: folder)
      return (moved, .move(moved, into: url.deletingLastPathComponent()))
    case .trash(let url):
      try present(url, in: library)
      let trashed = try trash.trash(url)
      return (url, .restore(trashedName: trashed.lastPathComponent))
    case .restore(let name):
      let restored = try trash.restore(try trash.entry(named: name, from: library))
      return (restored, .trash(restored))
    }
  }

  /// Throws `notFound`, naming the path, when nothing is at `url` any more.
  nonisolated private static func present(_ url: URL, in library: LibraryFolder)
    throws(QuireError)
  {
    let status: stat?
    do { status = try Sys.status(url.path) } catch {
      throw QuireError(.ioError, "Could not look at “\(url.path)”.", path: url.path, cause: error)
    }
    guard status != nil else {
      throw QuireError(
        .notFound,
        "“\(library.relative(url))” is no longer there (it was moved or deleted since), so this cannot be undone.",
        path: url.path)
    }
  }
}

extension Trash {
  /// The entry named `name` in this Trash that came from `library`.
  ///
  /// - Throws: `notFound` when the Trash has no such entry from this library.
  func entry(named name: String, from library: LibraryFolder) throws(QuireError) -> URL {
    guard
      let entry = items(from: library.root).first(where: { $0.trashed.lastPathComponent == name })
    else {
      throw QuireError(.notFound, "“\(name)” is not in the Trash (or was not in this library).")
    }
    return entry.trashed
  }
}
