/// The runtime folder's index of presenters (``PresenterDirectory``) as one coordinated access
/// reads it: each of its folders is listed at most once, and a folder the index does not hold
/// (most paths have no presenter) is known from one listing of `at/` or `below/`, not from a
/// failed open per path. The items of one access often share their ancestors: a batch of 256
/// documents in one folder reads its ancestors' folders once, not 256 times.
///
/// A presenter that registers during the access comes after it, as ``CoordinatedAccess``
/// explains (its own coordinated read waits for this access's locks), so listings kept for the
/// length of one access are as current as the access needs.
final class PresenterListing {
  private var buckets: [String: Set<String>] = [:]
  private var listed: [String: [(name: String, target: String)]] = [:]

  /// The entries (name and presented path) of `folder`, a bucket of the index.
  func entries(in folder: String) -> [(name: String, target: String)] {
    if let known = listed[folder] { return known }
    var found: [(name: String, target: String)] = []
    if let (base, bucket) = CoordinationRuntime.split(folder) {
      if buckets[base] == nil { buckets[base] = Set(CoordinationRuntime.names(in: base)) }
      if buckets[base]?.contains(bucket) == true { found = PresenterDirectory.entries(in: folder) }
    } else {
      found = PresenterDirectory.entries(in: folder)
    }
    listed[folder] = found
    return found
  }
}
