import Foundation

/// Presents one scope of a running query, so coordinated changes by any process reach the query
/// at once, and changes by programs that do not coordinate arrive through the presenter's folder
/// watch.
final class QueryPresenter: FilePresenter {
  let scope: URL
  private let engine: QueryEngine

  init(scope: URL, engine: QueryEngine) {
    self.scope = scope
    self.engine = engine
  }

  nonisolated var presentedItemURL: URL? { scope }

  func presentedSubitemDidAppear(at url: URL) async { await engine.refresh(url.path) }
  func presentedSubitemDidChange(at url: URL) async { await engine.refresh(url.path) }
  func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) async {
    await engine.move(from: oldURL.path, to: newURL.path)
  }
  func presentedItemDidChange() async { await engine.rescan() }
}
