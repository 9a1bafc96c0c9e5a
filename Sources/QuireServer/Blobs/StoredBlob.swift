import Foundation

/// A pack or a loose chunk as the blob store holds it: its size and when it was written, which
/// the collection compares with its grace period.
struct StoredBlob: Sendable {
  var size: Int64
  var modified: Date
}
