import Foundation
import NIOCore
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
    var output = ByteBuffer()
    openResponse(href: href, to: &output)
    for (status, values) in properties where !values.isEmpty {
      output.writeStaticString("<D:propstat><D:prop>")
      for (name, value) in values { name.write(value, to: &output) }
      closePropstat(status, to: &output)
    }
    output.writeStaticString("</D:response>")
    return String(buffer: output)
  }

  /// Writes the opening of a `response` for `href`, up to its first `propstat`.
  static func openResponse(href: String, to output: inout ByteBuffer) {
    output.writeStaticString("<D:response><D:href>")
    output.writeString(escape(href))
    output.writeStaticString("</D:href>")
  }

  /// Writes the end of a `propstat` whose properties are written, with `status`.
  static func closePropstat(_ status: Int, to output: inout ByteBuffer) {
    output.writeStaticString("</D:prop><D:status>HTTP/1.1 ")
    output.writeString(String(status))
    output.writeStaticString(" ")
    output.writeString(reason(status))
    output.writeStaticString("</D:status></D:propstat>")
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
  /// "Sun, 06 Nov 1994 08:49:37 GMT".
  static func httpDate(_ seconds: Double) -> String {
    var output = ByteBuffer()
    writeHTTPDate(seconds, to: &output)
    return String(buffer: output)
  }

  /// Writes the HTTP date of `seconds` to `output`. Digit by digit: a folder of 10 000 items
  /// lists 10 000, and Foundation's formatters, then string interpolation, were a quarter and
  /// then a tenth of such a PROPFIND.
  static func writeHTTPDate(_ seconds: Double, to output: inout ByteBuffer) {
    let (year, month, day, time, weekday) = civil(seconds)
    var text: [UInt8] = []
    text.reserveCapacity(32)
    text += weekdays[weekday].utf8
    text += ", ".utf8
    digits(day, 2, to: &text)
    text.append(UInt8(ascii: " "))
    text += months[month - 1].utf8
    text.append(UInt8(ascii: " "))
    digits(year, 4, to: &text)
    text.append(UInt8(ascii: " "))
    clock(time, to: &text)
    text += " GMT".utf8
    output.writeBytes(text)
  }

  /// An RFC 3339 date in UTC, as `creationdate` carries it: "1994-11-06T08:49:37Z".
  static func isoDate(_ seconds: Double) -> String {
    var output = ByteBuffer()
    writeISODate(seconds, to: &output)
    return String(buffer: output)
  }

  /// Writes the RFC 3339 date of `seconds` to `output`.
  static func writeISODate(_ seconds: Double, to output: inout ByteBuffer) {
    let (year, month, day, time, _) = civil(seconds)
    var text: [UInt8] = []
    text.reserveCapacity(24)
    digits(year, 4, to: &text)
    text.append(UInt8(ascii: "-"))
    digits(month, 2, to: &text)
    text.append(UInt8(ascii: "-"))
    digits(day, 2, to: &text)
    text.append(UInt8(ascii: "T"))
    clock(time, to: &text)
    text.append(UInt8(ascii: "Z"))
    output.writeBytes(text)
  }

  private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
  private static let months = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

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

  /// Appends `number` (0 to 9999) in `count` digits, with leading zeros.
  private static func digits(_ number: Int, _ count: Int, to text: inout [UInt8]) {
    var divisor = 1
    for _ in 1..<count { divisor *= 10 }
    while divisor > 0 {
      text.append(UInt8(ascii: "0") + UInt8(number / divisor % 10))
      divisor /= 10
    }
  }

  /// Appends the time of day `time` (seconds) as "08:49:37".
  private static func clock(_ time: Int, to text: inout [UInt8]) {
    digits(time / 3600, 2, to: &text)
    text.append(UInt8(ascii: ":"))
    digits(time / 60 % 60, 2, to: &text)
    text.append(UInt8(ascii: ":"))
    digits(time % 60, 2, to: &text)
  }
}
