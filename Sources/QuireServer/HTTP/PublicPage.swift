import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuireCore
import QuireSyncProtocol

/// Public links in any browser, without an account: `/s/{token}` is a read-only page with the
/// document's thumbnail, name and contents (text shown, images shown, a package listed and
/// downloadable as its zip archive); `/s/{token}/raw` is a file's bytes (or a package member's,
/// `?member=PATH`) and `/s/{token}/archive` a package's zip. Only GET is routed, so a link can
/// never write; a revoked or unknown link is 404.
///
/// Every answer forbids scripts (a shared SVG or HTML file cannot run in the server's origin),
/// sends no referrer (the token is in the address) and is not cached (revoking takes effect at
/// once).
struct PublicPage: Sendable {
  let store: ServerStore
  /// Downloads of one link at once are bounded (``HeavyRequests``).
  let heavy: HeavyRequests
  /// Text larger than this is offered for download rather than shown.
  static let maximumShownText = 1 << 20
  /// The most bytes a package's archive may hold (each member is read whole into the zip; a
  /// file's download is sent a few MiB at a time and has no limit).
  static let maximumDownload = 256 << 20

  func add(to router: Router<ServerRequestContext>) {
    router.get("/s/:token") { _, context in
      let token = try context.parameters.require("token")
      do {
        return Self.html(try page(try store.shares.linkedDocument(token: token), token: token))
      } catch let error as SyncError where error.code == .notFound {
        return Self.html(
          Self.layout(
            title: "Link not found",
            body:
              "<h1>This link does not work</h1><p>\(MarkupText.escape(error.message))</p>"),
          status: .notFound)
      }
    }
    router.get("/s/:token/raw") { request, context in
      let token = try context.parameters.require("token")
      return try await heavy.run("link:" + token) { try rawResponse(request, token: token) }
    }
    router.get("/s/:token/archive") { _, context in
      let token = try context.parameters.require("token")
      return try await heavy.run("link:" + token) { try archiveResponse(token: token) }
    }
  }

  /// `/s/{token}/raw`: a file's bytes, or a package member's (`?member=PATH`).
  private func rawResponse(_ request: Request, token: String) throws -> Response {
    let document = try store.shares.linkedDocument(token: token)
    let wanted = request.uri.queryParameters["member"].map(String.init) ?? ""
    guard let member = document.members.first(where: { $0.path == wanted }) else {
      throw SyncError(.notFound, "“\(document.name)” has no member “\(wanted)”.")
    }
    let name = wanted.isEmpty ? document.name : String(wanted.split(separator: "/").last ?? "")
    return ServerResponse.chunks(
      try store.shares.download(of: member, account: document.account),
      headers: Self.fileHeaders(name: name, type: Self.contentType(name)))
  }

  /// `/s/{token}/archive`: a package as its zip.
  private func archiveResponse(token: String) throws -> Response {
    let document = try store.shares.linkedDocument(token: token)
    guard document.kind == .package else {
      throw SyncError(.notFound, "“\(document.name)” is a file, not a package: download it.")
    }
    return try Self.archiveResponse(document, store: store)
  }

  /// A package `document` as its zip (the link's, or the web drive's download): `tooLarge` past
  /// ``maximumDownload``.
  static func archiveResponse(_ document: LinkedDocument, store: ServerStore) throws -> Response {
    try checkSize(document.members.reduce(0) { $0 + $1.size }, document.name)
    let archive = try archive(document, store: store)
    return Response(
      status: .ok, headers: fileHeaders(name: document.name + ".zip", type: "application/zip"),
      body: ResponseBody(contentLength: archive.size) { writer in
        try await withTaskExecutorPreference(BlockingExecutor.shared) {
          while let piece = try archive.file.read(upToCount: 1 << 20), !piece.isEmpty {
            try await writer.write(ByteBuffer(bytes: piece))
          }
        }
        try await writer.finish(nil)
      })
  }

  /// The page for `document`.
  private func page(_ document: LinkedDocument, token: String) throws -> String {
    let base = "/s/\(token)"
    let size = document.members.reduce(0) { $0 + $1.size }
    var body = ""
    if let thumbnail = document.members.first(where: {
      $0.path.hasPrefix("QuickLook/Thumbnail.")
        && Self.contentType($0.path).hasPrefix("image/")
    }) {
      body +=
        "<img class=\"thumbnail\" alt=\"\" src=\"\(base)/raw?member=\(MarkupText.escape(thumbnail.path))\">"
    }
    body += "<h1>\(MarkupText.escape(document.name))</h1>"
    body +=
      "<p class=\"meta\">Shared read-only · \(ByteCountFormatter.string(fromByteCount: Int64(size), countStyle: .file))</p>"
    switch document.kind {
    case .package:
      body += "<p><a class=\"download\" href=\"\(base)/archive\">Download as .zip</a></p><ul>"
      for member in document.members {
        body +=
          "<li><a href=\"\(base)/raw?member=\(MarkupText.escape(member.path))\">\(MarkupText.escape(member.path))</a> <span class=\"meta\">\(member.size) bytes</span></li>"
      }
      body += "</ul>"
    case .file:
      let type = Self.contentType(document.name)
      body += "<p><a class=\"download\" href=\"\(base)/raw\">Download</a></p>"
      if type.hasPrefix("image/") {
        body +=
          "<img class=\"contents\" alt=\"\(MarkupText.escape(document.name))\" src=\"\(base)/raw\">"
      } else if let member = document.members.first, member.size <= Self.maximumShownText,
        let text = String(
          validating: try store.shares.contents(of: member, account: document.account),
          as: UTF8.self),
        !text.contains("\0")
      {
        body += "<pre class=\"contents\">\(MarkupText.escape(text))</pre>"
      }
    }
    return Self.layout(title: document.name, body: body)
  }

  /// `document`'s members as a zip archive whose one folder is the package: an open file with
  /// no name, sent a MiB at a time, whose space is freed when the answer is written or dropped.
  private static func archive(_ document: LinkedDocument, store: ServerStore) throws -> (
    file: FileHandle, size: Int
  ) {
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("quire-link-\(UUID().uuidString).zip")
    defer { try? FileManager.default.removeItem(at: file) }
    var writer = try ArchiveWriter(path: file.path)
    try writer.addDirectory(document.name, mode: 0o755, date: Date())
    for member in document.members {
      try writer.addFile(
        "\(document.name)/\(member.path)",
        contents: Data(try store.shares.contents(of: member, account: document.account)),
        mode: member.permissions, date: Date(timeIntervalSince1970: member.safeModified))
    }
    try writer.finish()
    let handle = try FileHandle(forReadingFrom: file)
    let size = Int(try handle.seekToEnd())
    try handle.seek(toOffset: 0)
    return (handle, size)
  }

  private static func checkSize(_ size: Int, _ name: String) throws(SyncError) {
    guard size <= maximumDownload else {
      throw SyncError(
        .tooLarge,
        "“\(name)” is larger than a download as one archive takes (\(maximumDownload >> 20) MiB); sync it, or download its files one by one."
      )
    }
  }

  private static let headers: HTTPFields = [
    .contentSecurityPolicy:
      "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
    HTTPField.Name("Referrer-Policy")!: "no-referrer", .cacheControl: "no-store",
    HTTPField.Name("X-Content-Type-Options")!: "nosniff",
  ]

  private static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
    var fields = headers
    fields[.contentType] = "text/html; charset=utf-8"
    return Response(
      status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: text)))
  }

  /// The headers of a download of `name`, shown inline as `type`.
  private static func fileHeaders(name: String, type: String) -> HTTPFields {
    var fields = headers
    fields[.contentType] = type
    let ascii = String(name.unicodeScalars.filter { $0.isASCII && $0 != "\"" && $0 != "\\" })
    fields[.contentDisposition] = "inline; filename=\"\(ascii)\""
    return fields
  }

  /// The media type a name's extension suggests (text shown as UTF-8).
  static func contentType(_ name: String) -> String {
    // After the last ".", lowercased only when it has capitals: a listing asks 10 000 times.
    var bytes = name.utf8[...]
    while bytes.last == UInt8(ascii: ".") { bytes = bytes.dropLast() }
    if let dot = bytes.lastIndex(of: UInt8(ascii: ".")) {
      bytes = bytes[bytes.index(after: dot)...]
    }
    var suffix = Substring(bytes)
    if bytes.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) {
      suffix = Substring(suffix.lowercased())
    }
    return switch suffix {
    case "png": "image/png"
    case "jpg", "jpeg": "image/jpeg"
    case "gif": "image/gif"
    case "webp": "image/webp"
    case "svg": "image/svg+xml"
    case "txt", "md", "markdown", "csv", "json", "swift", "log": "text/plain; charset=utf-8"
    case "pdf": "application/pdf"
    default: "application/octet-stream"
    }
  }

  private static func layout(title: String, body: String) -> String {
    """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>\(MarkupText.escape(title)) — Quire</title>
    <style>
    body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f6f6f4; color: #222; }
    main { max-width: 52rem; margin: 2rem auto; padding: 2rem; background: #fff;
      border-radius: 12px; box-shadow: 0 1px 4px rgba(0,0,0,.08); }
    h1 { margin: .2rem 0; font-size: 1.6rem; word-break: break-word; }
    .meta { color: #777; font-size: .9rem; }
    .thumbnail { max-width: 12rem; max-height: 12rem; border-radius: 8px; display: block; }
    img.contents { max-width: 100%; border-radius: 8px; }
    pre.contents { white-space: pre-wrap; word-break: break-word; background: #fafafa;
      padding: 1rem; border-radius: 8px; border: 1px solid #eee; }
    a.download { display: inline-block; padding: .4rem .9rem; background: #2f6fdb; color: #fff;
      border-radius: 6px; text-decoration: none; }
    </style></head>
    <body><main>\(body)</main></body></html>
    """
  }
}
