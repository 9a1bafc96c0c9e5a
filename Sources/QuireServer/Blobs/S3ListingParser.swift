import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Reads one page of an S3 `ListObjectsV2` answer (`ListBucketResult`): each object's key, size
/// and modification date, and whether more pages follow.
final class S3ListingParser: NSObject, XMLParserDelegate {
  private(set) var objects: [S3Bucket.Object] = []
  private(set) var truncated = false
  private(set) var nextToken: String?
  private var current: S3Bucket.Object?
  private var text = ""

  /// The page in `body`.
  static func parse(_ body: [UInt8]) -> (
    objects: [S3Bucket.Object], truncated: Bool, nextToken: String?
  ) {
    let delegate = S3ListingParser()
    let parser = XMLParser(data: Data(body))
    parser.delegate = delegate
    _ = parser.parse()
    return (delegate.objects, delegate.truncated, delegate.nextToken)
  }

  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
    qualifiedName: String?, attributes: [String: String] = [:]
  ) {
    text = ""
    if elementName == "Contents" {
      current = S3Bucket.Object(key: "", size: 0, modified: .distantPast)
    }
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

  func parser(
    _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
    qualifiedName: String?
  ) {
    switch elementName {
    case "Key": current?.key = text
    case "Size": current?.size = Int(text) ?? 0
    case "LastModified": current?.modified = Self.date(text) ?? .distantPast
    case "Contents":
      if let current { objects.append(current) }
      current = nil
    case "IsTruncated": truncated = text == "true"
    case "NextContinuationToken": nextToken = text
    default: break
    }
    text = ""
  }

  /// An ISO 8601 date, with or without fractions of a second.
  private static func date(_ text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = formatter.date(from: text) { return date }
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.date(from: text)
  }
}
