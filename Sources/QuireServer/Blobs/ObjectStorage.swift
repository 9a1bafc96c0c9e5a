import Foundation
import QuireSyncProtocol

/// A bucket of S3-compatible object storage for the server's chunk bytes, named as
/// `s3://BUCKET[/PREFIX]` (`quire server --blobs`), with the endpoint and region from the
/// standard AWS variables (`AWS_ENDPOINT_URL`, `AWS_REGION`).
///
/// The server remembers where its blobs are in its data folder (`blobs.json`), so `quire server
/// gc` and later starts find them without being told again; the keys are never written there:
/// each start reads `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`.
public struct ObjectStorage: Sendable, Codable, Equatable {
  /// The bucket's name.
  public var bucket: String
  /// What every key starts with: empty, or a path ending in `/`.
  public var prefix: String
  /// The storage's address, such as `https://s3.eu-west-1.amazonaws.com` or
  /// `http://127.0.0.1:8333` (path-style requests: `ENDPOINT/BUCKET/KEY`).
  public var endpoint: URL
  /// The region requests are signed for.
  public var region: String

  /// A bucket at `endpoint`.
  public init(bucket: String, prefix: String = "", endpoint: URL, region: String = "us-east-1") {
    self.bucket = bucket
    self.prefix = prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/"
    self.endpoint = endpoint
    self.region = region
  }

  /// Reads `s3://BUCKET[/PREFIX]`; the endpoint comes from `AWS_ENDPOINT_URL` (Amazon S3's
  /// regional endpoint when unset) and the region from `AWS_REGION` (`us-east-1`).
  public init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment)
    throws(SyncError)
  {
    guard text.hasPrefix("s3://"), let url = URL(string: text), let bucket = url.host,
      !bucket.isEmpty
    else {
      throw SyncError(
        .malformed,
        "“\(text)” is not an object storage address: write s3://BUCKET or s3://BUCKET/PREFIX.")
    }
    let region = environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
    let endpointText = environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"]
    guard let endpoint = URL(string: endpointText ?? "https://s3.\(region).amazonaws.com"),
      endpoint.scheme == "http" || endpoint.scheme == "https", endpoint.host != nil
    else {
      throw SyncError(
        .malformed,
        "AWS_ENDPOINT_URL “\(endpointText ?? "")” is not an http or https address of the object storage."
      )
    }
    let prefix = url.path.split(separator: "/").joined(separator: "/")
    self.init(bucket: bucket, prefix: prefix, endpoint: endpoint, region: region)
  }

  /// `s3://BUCKET/PREFIX`, as the user wrote it.
  public var address: String { "s3://\(bucket)/\(prefix)" }

  /// The blob store over this bucket, with the keys in `environment`.
  func blobStore(environment: [String: String]) throws(SyncError) -> S3BlobStore {
    guard let accessKey = environment["AWS_ACCESS_KEY_ID"],
      let secretKey = environment["AWS_SECRET_ACCESS_KEY"]
    else {
      throw SyncError(
        .unauthorized,
        "The server keeps its blobs in \(address) but has no keys for it: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY."
      )
    }
    let signer = SigV4Signer(accessKey: accessKey, secretKey: secretKey, region: region)
    return S3BlobStore(
      bucket: S3Bucket(endpoint: endpoint, name: bucket, signer: signer), prefix: prefix)
  }
}
