import Foundation
import QuireCore

/// Writing WebDAV's XML answers: escaping, and the `multistatus` of PROPFIND and PROPPATCH.
/// Written as text (the answers are flat and fixed in shape); requests are parsed by
/// ``DAVElement``.
enum DAVXML {
  /// `text` with XML's five special characters escaped (QuireCore's ``MarkupText``).
  static func escape(_ text: String) -> String { MarkupText.escape(text) }

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
    var output = ""
    response(href: href, properties, to: &output)
    return output
  }

  /// The same, appended to `output`.
  static func response(
    href: String, _ properties: [(status: Int, values: [(DAVPropertyName, String?)])],
    to output: inout String
  ) {
    output += "<D:response><D:href>"
    output += escape(href)
    output += "</D:href>"
    for (status, values) in properties where !values.isEmpty {
      output += "<D:propstat><D:prop>"
      for (name, value) in values { name.write(value, to: &output) }
      output += "</D:prop><D:status>HTTP/1.1 "
      output += String(status)
      output += " "
      output += reason(status)
      output += "</D:status></D:propstat>"
    }
    output += "</D:response>"
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

  /// An HTTP date (RFC 9110 §5.6.7), as `getlastmodified` and `Last-Modified` carry it:
  /// "Sun, 06 Nov 1994 08:49:37 GMT". Written by hand: a folder of 10 000 items lists 10 000,
  /// and Foundation's formatters took a quarter of such a PROPFIND.
  static func httpDate(_ seconds: Double) -> String {
    let (year, month, day, time, weekday) = civil(seconds)
    let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    let months = [
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    return "\(weekdays[weekday]), \(two(day)) \(months[month - 1]) \(year) \(clock(time)) GMT"
  }

  /// An RFC 3339 date in UTC, as `creationdate` carries it: "1994-11-06T08:49:37Z".
  static func isoDate(_ seconds: Double) -> String {
    let (year, month, day, time, _) = civil(seconds)
    return "\(year)-\(two(month))-\(two(day))T\(clock(time))Z"
  }

  /// The UTC calendar date of `seconds` since 1970 (within years 1 to 9999), its second of the
  /// day, and its weekday counted from Thursday (1 January 1970's).
  static func civil(_ seconds: Double) -> (
    year: Int, month: Int, day: Int, time: Int, weekday: Int
  ) {
    let bounded = seconds.isFinite ? min(max(seconds, -62_135_596_800), 253_402_300_799) : 0
    let whole = Int(bounded.rounded(.down))
    let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
    let time = whole - days * 86_400
    // Howard Hinnant's days-to-civil algorithm (proleptic Gregorian calendar).
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shifted = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * shifted + 2) / 5 + 1
    let month = shifted < 10 ? shifted + 3 : shifted - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    return (year, month, day, time, ((days % 7) + 7) % 7)
  }

  private static func two(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }

  private static func clock(_ time: Int) -> String {
    "\(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60))"
  }
}
