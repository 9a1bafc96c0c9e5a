import Foundation
import Hummingbird
import Quire
import QuireCore
import ServiceLifecycle

/// The browser's API: listing, recents, creating, renaming, moving, duplicating, tagging,
/// trashing and restoring, thumbnails, import and export. Every path from the page goes through
/// ``LibraryFolder/url(_:)``.
struct LibraryRoutes: Sendable {
  let feed: LibraryFeed
  let library: LibraryFolder
  let recents: RecentDocuments
  let maxUploadBytes: Int
  let undo: BrowserUndo
  let generated = GeneratedThumbnails()

  struct Listing: Encodable {
    var version: Int
    var folder: String
    var total: Int
    var offset: Int
    var items: [LibraryItem]
  }

  func add(to router: Router<BasicRequestContext>) {
    router.get("api/list") { request, _ in await api { try await list(request) } }
    router.get("api/recents") { _, _ in await api { try await recentItems() } }
    router.get("api/trash") { _, _ in await api { trashed() } }
    router.get("api/thumbnail") { request, _ in await api { try await thumbnail(request) } }
    router.get("api/export") { request, _ in await api { try await export(request) } }
    router.get("api/events") { _, _ in events() }
    router.post("api/create") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        return try await create(body)
      }
    }
    router.post("api/folder") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let folder = try library.url(body["folder"] ?? "")
        let url = folder.appendingPathComponent(try library.name(body["name"] ?? ""))
        do {
          try FileCoordinator().coordinate(writingItemAt: url) { url in
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
          }
        } catch {
          throw QuireError(
            .alreadyExists, "There is already something called “\(url.lastPathComponent)” here.",
            path: url.path, cause: error)
        }
        return APIResponse.json(["path": library.relative(url)])
      }
    }
    router.post("api/rename") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let url = try library.item(body["path"] ?? "")
        let renamed = try DocumentFiles.rename(url, to: try library.name(body["name"] ?? ""))
        await record(body, "Rename", .rename(renamed, to: url.lastPathComponent))
        return APIResponse.json(["path": library.relative(renamed)])
      }
    }
    router.post("api/move") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let url = try library.item(body["path"] ?? "")
        let moved = try DocumentFiles.move(url, into: try library.url(body["folder"] ?? ""))
        await record(body, "Move", .move(moved, into: url.deletingLastPathComponent()))
        return APIResponse.json(["path": library.relative(moved)])
      }
    }
    router.post("api/copy") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let url = try library.item(body["path"] ?? "")
        let copy = try DocumentFiles.copy(url, into: try library.url(body["folder"] ?? ""))
        await record(body, "Copy", .trash(copy))
        return APIResponse.json(["path": library.relative(copy)])
      }
    }
    router.post("api/duplicate") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let copy = try DocumentFiles.duplicate(try library.item(body["path"] ?? ""))
        return APIResponse.json(["path": library.relative(copy)])
      }
    }
    router.post("api/tag") { request, context in
      await api {
        let body = try await request.decode(as: TagRequest.self, context: context)
        let url = try library.url(body.path)
        try FileCoordinator().coordinate(
          writingItemAt: url, options: .contentIndependentMetadataOnly
        ) { url in try Tags.setTags(body.tags, of: url) }
        return APIResponse.json(["path": body.path])
      }
    }
    router.post("api/delete") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let url = try library.item(body["path"] ?? "")
        let trashed = try Trash.home.trash(url)
        await record(body, "Move to Trash", .restore(trashedName: trashed.lastPathComponent))
        return APIResponse.json(["trashed": trashed.lastPathComponent])
      }
    }
    router.post("api/restore") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let name = try library.name(body["trashed"] ?? "")
        let restored = try Trash.home.restore(try Trash.home.entry(named: name, from: library))
        await record(body, "Put Back", .trash(restored))
        return APIResponse.json(["path": library.relative(restored)])
      }
    }
    router.post("api/import") { request, _ in await api { try await importUpload(request) } }
  }

  /// Files `inverse` for Undo when the request names the page's operation (its `step`).
  private func record(_ body: [String: String], _ name: String, _ inverse: BrowserUndo.Inverse)
    async
  {
    guard let step = body["step"], !step.isEmpty else { return }
    await undo.record(inverse, step: step, actionName: name)
  }

  struct TagRequest: Decodable {
    var path: String
    var tags: [String]
  }

  // MARK: Listing

  private func list(_ request: Request) async throws -> Response {
    let parameters = request.uri.queryParameters
    let folder = String(parameters["folder"] ?? "")
    _ = try library.url(folder)
    let search = String(parameters["q"] ?? "").lowercased()
    let kind = String(parameters["kind"] ?? "")
    let tag = String(parameters["tag"] ?? "").lowercased()
    // A search, or a tag (the sidebar's tags), looks through the whole library; otherwise one
    // folder is listed.
    var items = search.isEmpty && tag.isEmpty ? await feed.items(in: folder) : await feed.items()
    if !search.isEmpty { items = items.filter { $0.name.lowercased().contains(search) } }
    if !kind.isEmpty {
      items = items.filter {
        kind == "folder"
          ? $0.isFolder : SampleDocuments.Kind(url: $0.url)?.rawValue == kind && !$0.isFolder
      }
    }
    if !tag.isEmpty { items = items.filter { $0.tags.contains { $0.lowercased() == tag } } }
    let order = LibraryOrder(
      sort: parameters["sort"].map(String.init), order: parameters["order"].map(String.init))
    // Only the column's value is worked out for every item, and only the page is made into
    // LibraryItems: a folder of 10 000 costs a sort of dates, not 10 000 items built.
    let listed = order.sorted(items) { item in
      let status = order.key == .sync ? item.ubiquity : nil
      return LibraryOrder.Entry(
        kind: order.key == .kind ? LibraryItem.kind(of: item) : "",
        modified: item.modificationDate, size: item.size, isFolder: item.isFolder,
        sync: status.map { LibraryItem.syncState($0) },
        conflicts: status?.hasUnresolvedConflicts == true)
    }
    let offset = max(0, Int(parameters["offset"] ?? "0") ?? 0)
    let limit = min(1000, max(1, Int(parameters["limit"] ?? "200") ?? 200))
    let page = listed.dropFirst(offset).prefix(limit).map { LibraryItem($0, library: library) }
    return APIResponse.json(
      Listing(
        version: await feed.version, folder: folder, total: listed.count, offset: offset,
        items: Array(page)))
  }

  private func recentItems() async throws -> Response {
    let urls = (try? recents.documents(searching: [library.root])) ?? []
    var items: [LibraryItem] = []
    for url in urls {
      if let item = await feed.item(at: url) { items.append(LibraryItem(item, library: library)) }
    }
    return APIResponse.json(["items": items])
  }

  private func trashed() -> Response {
    let entries = Trash.home.items(from: library.root).map {
      ["trashed": $0.trashed.lastPathComponent, "original": library.relative($0.original)]
    }
    return APIResponse.json(["items": entries])
  }

  // MARK: Documents as files

  private func create(_ body: [String: String]) async throws -> Response {
    guard let kind = SampleDocuments.Kind(rawValue: body["kind"] ?? "") else {
      throw QuireError(.unknownType, "Choose a document type: mydoc, text, album or sicd.")
    }
    let folder = try library.url(body["folder"] ?? "")
    var name = try library.name(body["name"].flatMap { $0.isEmpty ? nil : $0 } ?? "Document")
    if SampleDocuments.Kind(url: URL(fileURLWithPath: name)) != kind {
      name += "." + kind.filenameExtension
    }
    let url = try await Document.createDocument(named: name, in: folder) { url in
      MainActor.assumeIsolated { SampleDocuments.document(kind, at: url) }
    }
    return APIResponse.json(["path": library.relative(url)], status: .created)
  }

  private func thumbnail(_ request: Request) async throws -> Response {
    let url = try library.url(String(request.uri.queryParameters["path"] ?? ""))
    guard let item = await feed.item(at: url), !item.isFolder else {
      return APIResponse.error(.notFound, code: "noThumbnail", "No thumbnail for this item.")
    }
    // A package's own thumbnail is rewritten by every save; a flat file's look is its text.
    let stored =
      item.contentType == "public.plain-text"
      ? nil : await ThumbnailLoader.shared.thumbnail(for: url)
    // A document in the cloud shows only the thumbnail its placeholder promises: making one
    // would read it, and a read downloads it.
    let made =
      stored == nil && !item.isPlaceholder
      ? await generated.thumbnail(for: url, modified: item.modificationDate, size: item.size)
      : nil
    guard let thumbnail = stored ?? made else {
      return APIResponse.error(.notFound, code: "noThumbnail", "No thumbnail for this item.")
    }
    let types = ["png": "image/png", "svg": "image/svg+xml", "jpg": "image/jpeg"]
    let type = types[thumbnail.fileExtension] ?? "application/octet-stream"
    return Response(
      status: .ok, headers: [.contentType: type, .cacheControl: "private, max-age=3600"],
      body: .init(byteBuffer: ByteBuffer(bytes: thumbnail.data)))
  }

  /// `GET api/export?path=`: the document as a download, a package as its zip, read a piece at
  /// a time (``StreamedFile``), whatever its size.
  private func export(_ request: Request) async throws -> Response {
    let url = try library.url(String(request.uri.queryParameters["path"] ?? ""))
    var isFolder: ObjCBool = false
    let fd: Int32
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue
    {
      let scratch = FileManager.default.temporaryDirectory
        .appendingPathComponent("quire-export-\(UUID().uuidString).zip")
      // Gone as soon as it is open: the descriptor keeps its bytes until the answer is sent.
      defer { try? FileManager.default.removeItem(at: scratch) }
      try FileCoordinator().coordinate(readingItemAt: url) { url in
        try PackageArchive.export(url, to: scratch)
      }
      fd = try Sys.open(scratch.path, O_RDONLY | O_CLOEXEC)
    } else {
      var opened: Int32 = -1
      try FileCoordinator().coordinate(readingItemAt: url) { url in
        opened = try Sys.open(url.path, O_RDONLY | O_CLOEXEC)
      }
      fd = opened
    }
    let name = url.lastPathComponent + (isFolder.boolValue ? ".zip" : "")
    let quoted = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "document"
    return try StreamedFile(fd: fd).response(headers: [
      .contentType: "application/octet-stream",
      .contentDisposition: "attachment; filename*=UTF-8''\(quoted)",
    ])
  }

  /// Writes the body of `request` to the new file `url` as it arrives, a fragment at a time
  /// (an upload of any size holds one fragment of memory); past ``maxUploadBytes``,
  /// `limitReached`.
  private func receive(_ request: Request, into url: URL) async throws {
    let fd = try Sys.open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o666)
    defer { Sys.close(fd) }
    var received = 0
    for try await fragment in request.body {
      received += fragment.readableBytes
      guard received <= maxUploadBytes else {
        throw QuireError(
          .limitReached,
          "The file is larger than the \(maxUploadBytes >> 20) MiB the app accepts.")
      }
      try fragment.withUnsafeReadableBytes { try Sys.write(fd, $0) }
    }
  }

  private func importUpload(_ request: Request) async throws -> Response {
    let parameters = request.uri.queryParameters
    let folder = try library.url(String(parameters["folder"] ?? ""))
    let name = try library.name(String(parameters["name"] ?? ""))
    let scratch = FileManager.default.temporaryDirectory
      .appendingPathComponent("quire-import-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let upload = scratch.appendingPathComponent(name)
    try await receive(request, into: upload)
    let imported: URL
    if name.lowercased().hasSuffix(".zip") {
      // Archives go through the hardened importer: no escapes, no bombs, nothing half-written.
      imported = try PackageArchive.importArchive(upload, into: folder)
    } else {
      guard SampleDocuments.Kind(url: upload) != nil else {
        throw QuireError(
          .unknownType,
          "“\(name)” is neither an archive (.zip) nor a document this app opens (.mydoc, .txt, .album, .sicd)."
        )
      }
      imported = try DocumentFiles.move(upload, into: folder)
    }
    return APIResponse.json(["path": library.relative(imported)], status: .created)
  }

  // MARK: Live updates

  private func events() -> Response {
    let feed = self.feed
    return Response(
      status: .ok,
      headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
      body: ResponseBody { writer in
        let (frames, continuation) = await feed.subscribe()
        // An open page must not keep the app from stopping: Ctrl+C ends the stream.
        try await withGracefulShutdownHandler {
          for await frame in frames { try await writer.write(ByteBuffer(string: frame)) }
          try await writer.finish(nil)
        } onGracefulShutdown: {
          continuation.finish()
        }
      })
  }
}

/// Runs a route, turning a thrown error into a JSON error the page shows.
func api(_ body: () async throws -> Response) async -> Response {
  do { return try await body() } catch { return APIResponse.error(error) }
}
