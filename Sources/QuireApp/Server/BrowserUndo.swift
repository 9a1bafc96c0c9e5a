import Foundation
import Quire

/// The browser's Undo and Redo, kept by the app in an ``UndoManager`` as Finder keeps its own:
/// renames, moves, copies, moving to the Trash and putting back.
///
/// The page names each operation it carries out with a `step`; every request of that operation
/// (one per item) files the inverse of what it did under it, so one ``undo()`` takes back the
/// whole operation, however many requests it took. The steps outlive the page (a reload, a
/// second tab) and end with the app.
///
/// Every inverse is a rename on one file system (back from the Trash, back to a folder, back to
/// a name), so an undo is quick whatever the items weigh, and runs on the main actor as the
/// undo manager asks. An inverse that no longer applies (the item went elsewhere since) fails
/// with its error; the others of the step are still carried out, and what they did goes on the
/// other stack.
@MainActor
final class BrowserUndo {
  /// What takes back one item's part of an operation.
  enum Inverse: Equatable {
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
  private var failure: QuireError?
  private var touched: [URL] = []

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

  /// Takes back the last operation, or, with `redo`, does the last one taken back again.
  ///
  /// - Throws: the first inverse's error when one of them no longer applies; the rest of the
  ///   step was carried out, and nothing of it is left to undo.
  func undo(redo: Bool = false) throws(QuireError) -> Outcome {
    closeStep()
    failure = nil
    touched = []
    if redo { undoManager.redo() } else { undoManager.undo() }
    if let failure { throw failure }
    var outcome = state
    outcome.paths = touched.map(library.relative)
    return outcome
  }

  private func closeStep() {
    guard openStep != nil else { return }
    undoManager.endUndoGrouping()
    openStep = nil
  }

  private func register(_ inverse: Inverse) {
    undoManager.registerUndo(withTarget: self) { $0.carryOut(inverse) }
  }

  /// Carries out `inverse` and registers its own inverse, for the other stack.
  private func carryOut(_ inverse: Inverse) {
    do {
      let (url, next) = try apply(inverse)
      touched.append(url)
      register(next)
    } catch {
      failure = failure ?? error
    }
  }

  /// Carries out `inverse`; answers where the item is now and what takes that back.
  private func apply(_ inverse: Inverse) throws(QuireError) -> (URL, Inverse) {
    switch inverse {
    case .rename(let url, let name):
      try present(url)
      let renamed = try DocumentFiles.rename(url, to: name)
      return (renamed, .rename(renamed, to: url.lastPathComponent))
    case .move(let url, let folder):
      try present(url)
      let moved = try DocumentFiles.move(url, into: folder)
      return (moved, .move(moved, into: url.deletingLastPathComponent()))
    case .trash(let url):
      try present(url)
      let trashed = try trash.trash(url)
      return (url, .restore(trashedName: trashed.lastPathComponent))
    case .restore(let name):
      let restored = try trash.restore(try trash.entry(named: name, from: library))
      return (restored, .trash(restored))
    }
  }

  /// Throws `notFound`, naming the path, when nothing is at `url` any more.
  private func present(_ url: URL) throws(QuireError) {
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
