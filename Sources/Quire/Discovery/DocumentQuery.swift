import Foundation
import Synchronization

/// A live query over the documents in one or more folders: the role of NSMetadataQuery.
///
/// Iterate ``results()``: the first reports follow the initial gather (``Phase/gathering(found:)``
/// for progress, then ``Phase/gathered`` with every matching item, sorted), and each later one is
/// a batch of live updates with the items added, changed, removed and moved, beside the whole
/// new result. Packages are single items (their members are never listed); folders are items
/// too, and the query descends into them.
///
/// ```swift
/// let query = DocumentQuery(
///   scopes: [library], predicate: .nameLike("*.mydoc"),
///   sortDescriptors: [.init(.modificationDate, ascending: false)])
/// for await results in query.results() {
///   show(results.items)
/// }
/// ```
///
/// Changes made through ``FileCoordinator`` — in this process or any other — reach the query at
/// once (the query presents its scopes); changes by programs that do not coordinate arrive
/// through the file monitor a few milliseconds later. The query runs as long as the iteration.
///
/// The query keeps its ``index`` up to date: a later query of a scope gathered before reports the
/// indexed items at once (``Phase/gathered``), then reconciles them with the disk in the
/// background and reports what differs as its first update.
public final class DocumentQuery: Sendable {
  /// The folders searched.
  public let scopes: [URL]
  /// Which items are kept.
  public let predicate: Predicate
  /// The order of ``Results/items`` (by name when empty).
  public let sortDescriptors: [SortDescriptor]
  /// What ``Results/groups`` groups by, if anything.
  public let groupingKey: GroupingKey?
  /// How long live changes are collected before one report (zero: report each at once).
  public let notificationBatchingInterval: Duration
  /// The types that decide which folders are packages and what conforms to what.
  public let registry: TypeRegistry
  /// The persistent index the query starts from and keeps up to date (none: every start walks
  /// the scopes).
  public let index: DocumentIndex?
  /// Where the sync status of the items in a synced folder comes from (``Item/ubiquity``); none:
  /// every item is local.
  public let ubiquity: (any UbiquityStatusSource)?
  let scopePaths: [String]
  private let engines = Mutex<[QueryEngine]>([])
  private let presenters = Mutex<[QueryPresenter]>([])

  /// A query of `scopes` for items satisfying `predicate`.
  public init(
    scopes: [URL], predicate: Predicate = .all,
    sortDescriptors: [SortDescriptor] = [SortDescriptor(.name)],
    groupingKey: GroupingKey? = nil, notificationBatchingInterval: Duration = .zero,
    registry: TypeRegistry = TypeRegistry(), index: DocumentIndex? = .shared,
    ubiquity: (any UbiquityStatusSource)? = nil
  ) {
    self.scopes = scopes.map(\.standardizedFileURL)
    self.predicate = predicate
    self.sortDescriptors = sortDescriptors.isEmpty ? [SortDescriptor(.name)] : sortDescriptors
    self.groupingKey = groupingKey
    self.notificationBatchingInterval = notificationBatchingInterval
    self.registry = registry
    self.index = index
    self.ubiquity = ubiquity
    scopePaths = self.scopes.map { CoordinationRuntime.canonicalPath($0, resolvingLastLink: true) }
  }

  /// Starts the query: the gather, then live updates, until the iteration ends.
  public func results() -> AsyncStream<Results> {
    let (stream, continuation) = AsyncStream.makeStream(of: Results.self)
    let engine = QueryEngine(query: self, continuation: continuation)
    let presenters = scopePaths.map {
      QueryPresenter(scope: URL(fileURLWithPath: $0), engine: engine)
    }
    engines.withLock { $0.append(engine) }
    self.presenters.withLock { $0 += presenters }
    // The source's changes are listened to before its first statuses are read: none is missed.
    let changes = ubiquity?.changes()
    let gathering = Task { [ubiquity] in
      if let ubiquity { await engine.ubiquityChanged(await ubiquity.statuses()) }
      await engine.gather {
        for presenter in presenters { try? FileCoordinator.addFilePresenter(presenter) }
      }
      guard let ubiquity, let changes else { return }
      for await _ in changes {
        await engine.ubiquityChanged(await ubiquity.statuses())
        // A busy agent records many times a second: its statuses are read at most 10 times a
        // second (changes meanwhile coalesce into one), each read costing O(items).
        try? await Task.sleep(for: .milliseconds(100))
      }
    }
    continuation.onTermination = { [weak self] _ in
      gathering.cancel()
      for presenter in presenters { FileCoordinator.removeFilePresenter(presenter) }
      self?.engines.withLock { $0.removeAll { $0 === engine } }
      self?.presenters.withLock { all in all.removeAll { one in presenters.contains { $0 === one } }
      }
    }
    return stream
  }

  /// Holds live updates back (they accumulate) while the caller reads the results; calls nest.
  public func disableUpdates() async {
    for engine in engines.withLock({ $0 }) { await engine.disableUpdates() }
  }

  /// Lets live updates flow again once every ``disableUpdates()`` is matched; what accumulated
  /// is reported as one batch.
  public func enableUpdates() async {
    for engine in engines.withLock({ $0 }) { await engine.enableUpdates() }
  }

  /// Waits until every change already sent to the query's presenters has been handled (for
  /// tests: coordinated changes are delivered to presenters asynchronously).
  func waitForDeliveredChanges() async {
    for presenter in presenters.withLock({ $0 }) {
      guard let number = PresenterRegistry.shared.number(of: presenter),
        let queue = PresenterRegistry.shared.queue(of: number)
      else { continue }
      await withCheckedContinuation { continuation in
        queue.send(
          PresenterMessage(kind: .reacquire, presenter: number),
          completion: { _ in continuation.resume() })
      }
    }
  }
}
