import Foundation

/// One running query: the items found, kept sorted, and the changes not yet reported.
actor QueryEngine {
  private let query: DocumentQuery
  private let continuation: AsyncStream<DocumentQuery.Results>.Continuation
  private var scanner: QueryScanner
  private var all: [String: DocumentQuery.Item] = [:]
  private var sorted: [DocumentQuery.Item] = []
  private var added: [String: DocumentQuery.Item] = [:]
  private var changed: [String: DocumentQuery.Item] = [:]
  private var removed: [String: DocumentQuery.Item] = [:]
  private var moved: [DocumentQuery.Move] = []
  private var disabled = 0
  private var flushScheduled = false
  private var gathered = false
  /// What the index has not been told yet: removals are applied before upserts, so a path is
  /// in at most one of the two.
  private var indexUpserts: [String: DocumentQuery.Item] = [:]
  private var indexRemovals: Set<String> = []
  /// The synced folder of the query's ubiquity source, with a trailing slash, and the statuses
  /// it last gave, by relative path.
  private let ubiquityPrefix: String?
  private var statuses: [String: UbiquityStatus]?

  init(query: DocumentQuery, continuation: AsyncStream<DocumentQuery.Results>.Continuation) {
    self.query = query
    self.continuation = continuation
    scanner = QueryScanner(registry: query.registry)
    ubiquityPrefix = query.ubiquity.map {
      CoordinationRuntime.canonicalPath($0.folder, resolvingLastLink: true) + "/"
    }
  }

  /// The initial gather: the indexed items if every scope is in the index (then a reconcile with
  /// the disk), else every scope walked; then one sorted report. `present` starts watching the
  /// scopes: before the walk, so that nothing happening during it is missed (watching a big tree
  /// takes a while, so a warm start reports first and watches before it reconciles).
  func gather(present: () -> Void) async {
    if let index = query.index {
      var loaded: [DocumentQuery.Item] = []
      var warm = true
      for scope in query.scopePaths {
        guard let items = await index.items(under: scope) else {
          warm = false
          break
        }
        let shown = ubiquityPrefix == nil ? items : items.map(decorated)
        if loaded.isEmpty { loaded = shown } else { loaded += shown }
      }
      if warm {
        report(loaded)
        present()
        all.reserveCapacity(loaded.count)
        for item in loaded { all[item.path] = item }
        rescan()
        return
      }
    }
    present()
    let found = walk()
    guard !Task.isCancelled else { return }
    report(found)
    all.reserveCapacity(found.count)
    for item in found { all[item.path] = item }
  }

  /// Every scope walked (the gather without an index), in walk order: neighbours in memory are
  /// often neighbours in the sort, which sorts faster. The index is told what was found.
  private func walk() -> [DocumentQuery.Item] {
    var found: [DocumentQuery.Item] = []
    var lastReport = 0
    for scope in query.scopePaths {
      scanner.scan(scope, into: &found) { count in
        if count - lastReport >= 10_000 {
          lastReport = count
          continuation.yield(DocumentQuery.Results(phase: .gathering(found: count), items: []))
        }
      }
    }
    guard !Task.isCancelled else { return [] }
    if query.scopePaths.count > 1 {  // scopes may overlap
      var seen = Set<String>()
      found.removeAll { !seen.insert($0.path).inserted }
    }
    if let index = query.index {
      index.enqueue(DocumentIndex.Change(upserts: found))
      for scope in query.scopePaths { index.enqueue(DocumentIndex.Change(gatheredScope: scope)) }
    }
    return ubiquityPrefix == nil ? found : found.map(decorated)
  }

  /// Reports the gather: the items that match, sorted (by positions, each item's first sort key
  /// read once: see ``DocumentQuery/order(of:by:)``).
  private func report(_ items: [DocumentQuery.Item]) {
    let matching: [DocumentQuery.Item]
    if case .all = query.predicate { matching = items } else { matching = items.filter(matches) }
    sorted = DocumentQuery.order(of: matching, by: query.sortDescriptors).map { matching[$0] }
    gathered = true
    continuation.yield(results(.gathered))
  }

  /// Something at `path` appeared, changed or vanished.
  func refresh(_ path: String) {
    // A placeholder stands for the document beside it.
    let path =
      CloudPlaceholder.documentURL(forPlaceholder: URL(fileURLWithPath: path))?.path ?? path
    let target = owningPackage(of: path) ?? path
    if let item = scanner.item(at: target) {
      upsert(item)
      if item.isFolder {
        var found: [DocumentQuery.Item] = []
        scanner.scan(target, into: &found)
        for child in found where all[child.path] == nil { upsert(child) }
      }
    } else {
      remove(target)
    }
    scheduleFlush()
  }

  /// The item at `old` moved to `new`.
  func move(from old: String, to new: String) {
    guard let item = all[old] else {
      refresh(old)
      refresh(new)
      return
    }
    let prefix = old + "/"
    let affected = [item] + all.values.filter { $0.path.hasPrefix(prefix) }
    for previous in affected {
      let newPath = new + previous.path.dropFirst(old.count)
      forget(previous)
      guard let now = scanner.item(at: newPath).map(decorated) else { continue }
      all[newPath] = now
      noteIndexed(now)
      if matches(now) {
        insertSorted(now)
        moved.append(DocumentQuery.Move(from: previous.url, item: now))
      }
    }
    scheduleFlush()
  }

  /// Looks at everything again (events were lost).
  func rescan() {
    var found: [DocumentQuery.Item] = []
    for scope in query.scopePaths { scanner.scan(scope, into: &found, known: all) }
    guard !Task.isCancelled else { return }  // a partial walk would report false removals
    var fresh: [String: DocumentQuery.Item] = [:]
    fresh.reserveCapacity(found.count)
    for item in found { fresh[item.path] = item }
    for (path, item) in all where fresh[path] == nil { remove(item.path) }
    for item in found { upsert(item) }
    scheduleFlush()
  }

  /// The ubiquity source gave `new` statuses: the items whose status differs are updated.
  func ubiquityChanged(_ new: [String: UbiquityStatus]?) {
    statuses = new
    guard let prefix = ubiquityPrefix, gathered else { return }
    for item in all.values where item.path.hasPrefix(prefix) && decorated(item) != item {
      upsert(item)
    }
    scheduleFlush()
  }

  func disableUpdates() { disabled += 1 }

  func enableUpdates() {
    disabled = max(0, disabled - 1)
    if disabled == 0 { scheduleFlush() }
  }

  func finish() { continuation.finish() }

  // MARK: Bookkeeping

  private func matches(_ item: DocumentQuery.Item) -> Bool {
    query.predicate.evaluate(item, registry: query.registry)
  }

  /// `item` with its sync status, if it is in the synced folder (a folder the agent does not
  /// know holds nothing to send: it is current).
  private func decorated(_ item: DocumentQuery.Item) -> DocumentQuery.Item {
    guard let prefix = ubiquityPrefix, item.path.hasPrefix(prefix) else { return item }
    var item = item
    if let statuses {
      let relative = String(item.path.dropFirst(prefix.count))
      let unknown: UbiquityStatus =
        item.isFolder
        ? .current
        : item.isPlaceholder ? UbiquityStatus(downloadingStatus: .notDownloaded) : .waitingToUpload
      item.apply(statuses[relative] ?? unknown)
    } else {
      item.apply(nil)
    }
    return item
  }

  private func owningPackage(of path: String) -> String? {
    var current = (path as NSString).deletingLastPathComponent
    var found: String?
    while current.count > 1 {
      if let item = all[current], !item.isFolder { found = current }
      current = (current as NSString).deletingLastPathComponent
    }
    return found
  }

  private func upsert(_ found: DocumentQuery.Item) {
    let item = decorated(found)
    let old = all[item.path]
    if let old, old == item { return }
    all[item.path] = item
    noteIndexed(item)
    let wasMatching = old.map(matches) ?? false
    let isMatching = matches(item)
    if let old, wasMatching { removeSorted(old) }
    if isMatching { insertSorted(item) }
    switch (wasMatching, isMatching) {
    case (false, true):
      if removed.removeValue(forKey: item.path) != nil {
        changed[item.path] = item
      } else {
        added[item.path] = item
      }
    case (true, true):
      if added[item.path] != nil { added[item.path] = item } else { changed[item.path] = item }
    case (true, false): noteRemoved(old!)
    case (false, false): break
    }
  }

  private func remove(_ path: String) {
    if let item = all[path] { forget(item) }
    let prefix = path + "/"
    for item in all.values where item.path.hasPrefix(prefix) { forget(item) }
  }

  private func noteIndexed(_ item: DocumentQuery.Item) {
    indexRemovals.remove(item.path)
    indexUpserts[item.path] = item
  }

  private func forget(_ item: DocumentQuery.Item) {
    all[item.path] = nil
    indexUpserts[item.path] = nil
    indexRemovals.insert(item.path)
    if matches(item) {
      removeSorted(item)
      noteRemoved(item)
    }
  }

  private func noteRemoved(_ item: DocumentQuery.Item) {
    changed[item.path] = nil
    if added.removeValue(forKey: item.path) == nil { removed[item.path] = item }
  }

  private func index(of item: DocumentQuery.Item) -> Int {
    var (low, high) = (0, sorted.count)
    while low < high {
      let middle = (low + high) / 2
      if DocumentQuery.precedes(sorted[middle], item, by: query.sortDescriptors) {
        low = middle + 1
      } else {
        high = middle
      }
    }
    return low
  }

  private func insertSorted(_ item: DocumentQuery.Item) { sorted.insert(item, at: index(of: item)) }

  private func removeSorted(_ item: DocumentQuery.Item) {
    let position = index(of: item)
    if position < sorted.count && sorted[position].path == item.path {
      sorted.remove(at: position)
    } else if let found = sorted.firstIndex(where: { $0.path == item.path }) {
      sorted.remove(at: found)
    }
  }

  // MARK: Reporting

  private func scheduleFlush() {
    if let index = query.index, !indexUpserts.isEmpty || !indexRemovals.isEmpty {
      index.enqueue(
        DocumentIndex.Change(upserts: Array(indexUpserts.values), removals: Array(indexRemovals)))
      indexUpserts = [:]
      indexRemovals = []
    }
    guard gathered, disabled == 0, !flushScheduled else { return }
    let interval = query.notificationBatchingInterval
    if interval <= .zero {
      flush()
      return
    }
    flushScheduled = true
    Task {
      try? await Task.sleep(for: interval)  // the batching interval the caller asked for
      self.flushNow()
    }
  }

  private func flushNow() {
    flushScheduled = false
    if disabled == 0 { flush() }
  }

  private func flush() {
    guard !added.isEmpty || !changed.isEmpty || !removed.isEmpty || !moved.isEmpty else { return }
    var report = results(.updated)
    report.added = Array(added.values)
    report.changed = Array(changed.values)
    report.removed = Array(removed.values)
    report.moved = moved
    added = [:]
    changed = [:]
    removed = [:]
    moved = []
    continuation.yield(report)
  }

  private func results(_ phase: DocumentQuery.Phase) -> DocumentQuery.Results {
    var report = DocumentQuery.Results(phase: phase, items: sorted)
    if let key = query.groupingKey { report.groups = Self.group(sorted, by: key) }
    return report
  }

  private static func group(_ items: [DocumentQuery.Item], by key: DocumentQuery.GroupingKey)
    -> [String: [DocumentQuery.Item]]
  {
    var groups: [String: [DocumentQuery.Item]] = [:]
    for item in items {
      switch key {
      case .contentType: groups[item.contentType, default: []].append(item)
      case .folder:
        groups[(item.path as NSString).deletingLastPathComponent, default: []].append(item)
      case .tag:
        for tag in item.tags.isEmpty ? [""] : item.tags { groups[tag, default: []].append(item) }
      }
    }
    return groups
  }
}
