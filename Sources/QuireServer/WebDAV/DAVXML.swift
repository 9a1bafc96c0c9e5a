import Foundation

/// Writing WebDAV's XML answers: escaping, and the `multistatus` of PROPFIND and PROPPATCH.
/// Written as text (the answers are flat and fixed in shape); requests are parsed by
/// ``DAVElement``.
enum DAVXML {
  /// `text` with XML's five special characters escaped.
  static func escape(_ text: String) -> String {
    guard text.contains(where: { "<>&\"'".contains($0) }) else { return text }
    var output = ""
    output.reserveCapacity(text.utf8.count + 16)
    for character in text {
      switch character {
      case "<": output += "&lt;"
      case ">": output += "&gt;"
      case "&": output += "&amp;"
      case "\"": output += "&quot;"
      case "'": output += "&apos;"
      default: output.append(character)
      }
    }
    return output
  }

  /// The XML declaration and opening of a `multistatus`.
  static let multistatusStart =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:multistatus xmlns:D=\"DAV:\">"
  /// Its end.
  static let multistatusEnd = "</D:multistatus>\n"

  /// An `error` body naming the precondition `name` (RFC 4918 §16).
  static func error(_ name: String) -> String {
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:error xmlns:D=\"DAV:\"><D:\(name)/></D:error>\n"
  }

  /// One `response` with one `propstat` per status: `properties` maps each status to the
  /// properties written (name and value XML, nil for none).
  static func response(
    href: String, _ properties: [(status: Int, values: [(DAVPropertyName, String?)])]
  ) -> String {
    var output = "<D:response><D:href>\(escape(href))</D:href>"
    for (status, values) in properties where !values.isEmpty {
      output += "<D:propstat><D:prop>"
      for (name, value) in values { output += name.element(value) }
      output += "</D:prop><D:status>HTTP/1.1 \(status) \(reason(status))</D:status></D:propstat>"
    }
    return output + "</D:response>"
  }

  /// A `response` for an href with one status and no properties.
  static func response(href: String, status: Int) -> String {
    "<D:response><D:href>\(escape(href))</D:href><D:status>HTTP/1.1 \(status) \(reason(status))</D:status></D:response>"
  }

  /// The reason phrase of the statuses a multistatus carries.
  static func reason(_ status: Int) -> String {
    switch status {
    case 200: "OK"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 409: "Conflict"
    case 423: "Locked"
    case 424: "Failed Dependency"
    default: "Error"
    }
  }

  /// An HTTP date (RFC 9110 §5.6.7), as `getlastmodified` and `Last-Modified` carry it.
  static func httpDate(_ seconds: Double) -> String {
    Date(timeIntervalSince1970: seconds.isFinite ? seconds : 0)
      .formatted(Date.FormatStyle(timeZone: .gmt).httpDate)
  }

  /// An ISO 8601 date, as `creationdate` carries it.
  static func isoDate(_ seconds: Double) -> String {
    Date(timeIntervalSince1970: seconds.isFinite ? seconds : 0).formatted(.iso8601)
  }
}

extension Date.FormatStyle {
  /// "Sun, 06 Nov 1994 08:49:37 GMT".
  fileprivate var httpDate: Date.VerbatimFormatStyle {
    Date.VerbatimFormatStyle(
      format:
        "\(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .defaultDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) GMT",
      locale: Locale(identifier: "en_US_POSIX"), timeZone: .gmt,
      calendar: Calendar(identifier: .gregorian))
  }
}
