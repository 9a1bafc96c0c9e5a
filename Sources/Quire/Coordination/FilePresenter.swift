import Foundation

/// What a presenter hands back when it relinquishes its item: called once the other program's
/// coordinated access is over, so the presenter can resume (restart autosave, re-read, …).
public typealias FilePresenterReacquirer = @Sendable () async -> Void

/// An object that shows a file or folder to the user and wants to hear about other programs'
/// access to it: NSFilePresenter in Swift-concurrency form.
///
/// Register a presenter with ``FileCoordinator/addFilePresenter(_:)``. From then on, coordinated
/// reads and writes **by any process** of the same user ask it first (to save its unsaved
/// changes, to relinquish the item) and tell it afterwards (the item changed, moved or was
/// deleted). Writers that do not coordinate — an editor, `cp`, rsync — are noticed through the
/// file monitor and reported the same way.
///
/// Callbacks for one presenter are delivered one at a time, in order (the role of
/// `presentedItemOperationQueue`). Every callback has a default that does nothing, so a presenter
/// implements only what it needs. A ``FileCoordinator`` created with a presenter does not send
/// that presenter messages about its own operations.
public protocol FilePresenter: AnyObject, Sendable {
  /// The presented file or folder; `nil` while it has none. Read from any thread.
  nonisolated var presentedItemURL: URL? { get }

  /// Another program is about to read the item: stop writing it until the reacquirer runs.
  func relinquishPresentedItemToReader() async -> FilePresenterReacquirer?
  /// Another program is about to write the item: stop using it until the reacquirer runs.
  func relinquishPresentedItemToWriter() async -> FilePresenterReacquirer?
  /// Another program wants to read the latest contents: write unsaved changes now.
  func savePresentedItemChanges() async throws
  /// The item is about to be deleted: close it (keeping unsaved work recoverable).
  func accommodatePresentedItemDeletion() async throws
  /// The item was moved or renamed to `newURL`; ``presentedItemURL`` must follow.
  func presentedItemDidMove(to newURL: URL) async
  /// The item's contents or attributes changed.
  func presentedItemDidChange() async
  /// A new version of the item appeared (from sync); `version` names it.
  func presentedItemDidGainVersion(_ version: String) async
  /// A version of the item went away.
  func presentedItemDidLoseVersion(_ version: String) async
  /// A conflict version of the item was resolved.
  func presentedItemDidResolveConflictVersion(_ version: String) async
  /// An item inside the presented folder or package appeared at `url`.
  func presentedSubitemDidAppear(at url: URL) async
  /// An item inside the presented folder or package changed (or vanished) at `url`.
  func presentedSubitemDidChange(at url: URL) async
  /// An item inside the presented folder or package moved from `oldURL` to `newURL`.
  func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) async
  /// An item inside the presented folder or package is about to be deleted.
  func accommodatePresentedSubitemDeletion(at url: URL) async throws
}

extension FilePresenter {
  /// Does nothing and needs no reacquirer.
  public func relinquishPresentedItemToReader() async -> FilePresenterReacquirer? { nil }
  /// Does nothing and needs no reacquirer.
  public func relinquishPresentedItemToWriter() async -> FilePresenterReacquirer? { nil }
  /// Does nothing: a presenter without unsaved changes has nothing to save.
  public func savePresentedItemChanges() async throws {}
  /// Does nothing.
  public func accommodatePresentedItemDeletion() async throws {}
  /// Does nothing.
  public func presentedItemDidMove(to newURL: URL) async {}
  /// Does nothing.
  public func presentedItemDidChange() async {}
  /// Does nothing.
  public func presentedItemDidGainVersion(_ version: String) async {}
  /// Does nothing.
  public func presentedItemDidLoseVersion(_ version: String) async {}
  /// Does nothing.
  public func presentedItemDidResolveConflictVersion(_ version: String) async {}
  /// Does nothing.
  public func presentedSubitemDidAppear(at url: URL) async {}
  /// Does nothing.
  public func presentedSubitemDidChange(at url: URL) async {}
  /// Does nothing.
  public func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) async {}
  /// Does nothing.
  public func accommodatePresentedSubitemDeletion(at url: URL) async throws {}
}
