/// The runtime folder's index of presenters (``PresenterDirectory``) as one coordinated access
/// reads it: each of its folders is listed at most once. The items of one access often share
/// their ancestors, whose folders the look for each item's presenters lists: a batch of 256
/// documents in one folder lists them once, not 256 times.
///
/// (Listing `at/` and `below/` themselves, to skip the buckets that do not exist, is no saving:
/// they hold one bucket per presented path, and stale ones, so one listing of them cost a
/// single-item access ten times what its few failed opens do.)
///
/// A presenter that registers during the access comes after it, as ``CoordinatedAccess``
/// explains (its own coordinated read waits for this access's locks), so listings kept for the
/// length of one access are as current as the access needs.
final class PresenterListing {
  private var listed: [String: [(name: String, target: String)]] = [:]

  /// The entries (name and presented path) of `folder`, a bucket of the index.
  func entries(in folder: String) -> [(name: String, target: String)] {
    if let known = listed[folder] { return known }
    let found = PresenterDirectory.entries(in: folder)
    listed[folder] = found
    return found
  }
}
