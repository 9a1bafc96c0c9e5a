import Foundation

/// What a sync agent knows of the items in the folder it syncs, for ``DocumentQuery``: the role
/// of the ubiquity daemon behind NSMetadataQuery's ubiquitous attributes. `QuireSync`'s
/// `SyncStatusSource` reads what the Quire Sync agent records.
///
/// The query asks for ``statuses()`` when it starts and again after each element of
/// ``changes()``, and updates the items whose status differs.
public protocol UbiquityStatusSource: Sendable {
  /// The synced folder: items inside it are ubiquitous.
  var folder: URL { get }

  /// The status of each item the sync knows, keyed by its path relative to ``folder``. An item
  /// of the folder that is not in it is ``UbiquityStatus/waitingToUpload``. Nil while the folder
  /// is not synced (signed out): its items are local.
  func statuses() async -> [String: UbiquityStatus]?

  /// Yields whenever the statuses may have changed; the stream ends when its iteration does.
  /// It listens from the moment it returns, so a change between that and the first
  /// ``statuses()`` read is not missed.
  /// Make it with `bufferingPolicy: .bufferingNewest(1)`: changes that come while the query reads
  /// the statuses then count as one.
  func changes() -> AsyncStream<Void>
}
