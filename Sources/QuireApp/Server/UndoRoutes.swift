import Foundation
import Hummingbird
import Quire

/// The browser's Undo and Redo: `api/undo` and `api/redo` take back, or do again, the page's
/// last operation (``BrowserUndo``), and answer where the items are now; a GET of `api/undo`
/// names what they would do ("Move"), for the page's menus.
struct UndoRoutes: Sendable {
  let undo: BrowserUndo

  func add(to router: Router<BasicRequestContext>) {
    router.get("api/undo") { _, _ in await api { APIResponse.json(await undo.state) } }
    router.post("api/undo") { _, _ in
      await api { APIResponse.json(try await undo.undo()) }
    }
    router.post("api/redo") { _, _ in
      await api { APIResponse.json(try await undo.undo(redo: true)) }
    }
  }
}
