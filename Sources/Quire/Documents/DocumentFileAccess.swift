/// The serial executor on which a document does its file access, like UIDocument's
/// `performAsynchronousFileAccess`: reads and writes of one document never overlap, and never
/// run on the caller's actor.
actor DocumentFileAccess {
  func perform<T: Sendable>(_ body: @Sendable () throws -> T) throws -> T {
    try body()
  }
}
