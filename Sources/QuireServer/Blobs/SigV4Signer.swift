import Crypto
import Foundation

/// Signs S3 requests with AWS Signature Version 4 (`AWS4-HMAC-SHA256`, headers form).
///
/// Hand-written because no Swift S3 client is served to this project; it is the one part of
/// object storage that could not come from a library, so it is kept to the algorithm alone and
/// checked against the example AWS publishes for S3 (and, in the tests, by SeaweedFS, which
/// verifies every signature).
struct SigV4Signer: Sendable {
  var accessKey: String
  var secretKey: String
  var region: String
  var service = "s3"

  /// The SHA-256 of an empty body, which S3 wants spelled out for requests without one.
  static let emptyPayloadHash = hex(SHA256.hash(data: Data()))

  /// The headers to add to a request so that S3 accepts it: `x-amz-date`,
  /// `x-amz-content-sha256` and `authorization`. `headers` must hold every header the request
  /// sends that should be signed, `host` included; `path` is the request's path, not yet
  /// percent-encoded.
  func sign(
    method: String, path: String, query: [(name: String, value: String)] = [],
    headers: [String: String], payloadHash: String, date: Date
  ) -> [String: String] {
    let amzDate = Self.timestamp(date)
    let day = String(amzDate.prefix(8))
    var all = Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), $0.value) })
    all["x-amz-date"] = amzDate
    all["x-amz-content-sha256"] = payloadHash
    let names = all.keys.sorted()
    let canonicalHeaders = names.map { "\($0):\(Self.trimmed(all[$0]!))\n" }.joined()
    let signedHeaders = names.joined(separator: ";")
    let canonicalQuery = query.map { (Self.encode($0.name), Self.encode($0.value)) }
      .sorted { $0 < $1 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    let canonicalRequest = [
      method, Self.encodePath(path), canonicalQuery, canonicalHeaders, signedHeaders, payloadHash,
    ].joined(separator: "\n")
    let scope = "\(day)/\(region)/\(service)/aws4_request"
    let stringToSign = [
      "AWS4-HMAC-SHA256", amzDate, scope,
      Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8))),
    ].joined(separator: "\n")
    var key = SymmetricKey(data: Data("AWS4\(secretKey)".utf8))
    for part in [day, region, service, "aws4_request"] {
      key = SymmetricKey(
        data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
    }
    let signature = Self.hex(
      HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
    return [
      "x-amz-date": amzDate,
      "x-amz-content-sha256": payloadHash,
      "authorization":
        "AWS4-HMAC-SHA256 Credential=\(accessKey)/\(scope),SignedHeaders=\(signedHeaders),Signature=\(signature)",
    ]
  }

  /// `yyyyMMdd'T'HHmmss'Z'` in UTC.
  static func timestamp(_ date: Date) -> String {
    var time = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    gmtime_r(&time, &parts)
    return String(
      format: "%04d%02d%02dT%02d%02d%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
      parts.tm_hour, parts.tm_min, parts.tm_sec)
  }

  /// Lower-case hex of a digest or any bytes.
  static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    bytes.map { String(format: "%02x", $0) }.joined()
  }

  /// RFC 3986 percent-encoding: everything but letters, digits and `-._~`.
  static func encode(_ text: String) -> String {
    var encoded = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"):
        encoded.append(Character(UnicodeScalar(byte)))
      default:
        encoded += String(format: "%%%02X", byte)
      }
    }
    return encoded
  }

  /// A path with each segment encoded and its slashes kept (S3 encodes once, not twice).
  static func encodePath(_ path: String) -> String {
    path.split(separator: "/", omittingEmptySubsequences: false).map { encode(String($0)) }
      .joined(separator: "/")
  }

  private static func trimmed(_ value: String) -> String {
    value.trimmingCharacters(in: .whitespaces).split(
      separator: " ", omittingEmptySubsequences: true
    )
    .joined(separator: " ")
  }
}
