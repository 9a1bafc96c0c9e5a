/// Reports a download's bytes done so far and its total: what a ``FileProvider`` tells a
/// coordinated read waiting for a document in the cloud (the role of the NSProgress a file
/// provider publishes for a URL). Called from any thread.
public typealias DownloadProgress = @Sendable (_ completed: Int64, _ total: Int64) -> Void
