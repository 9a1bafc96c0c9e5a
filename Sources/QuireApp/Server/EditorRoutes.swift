import Foundation
import Hummingbird
import Quire

/// The editors' API: open a document, change its text or images, undo and redo, resolve a
/// conflict, retry a failed save, close. Each answer is the editor's new ``EditorState``; changes
/// the page did not make (a reload from disk, a conflict, a save finishing) arrive as `document`
/// events on the event stream.
struct EditorRoutes: Sendable {
  let library: LibraryFolder
  let documents: OpenDocuments
  let recents: RecentDocuments
  let maxUploadBytes: Int

  struct Edit: Decodable {
    var handle: String
    var text: String?
    var name: String?
    var choice: String?
  }

  func add(to router: Router<BasicRequestContext>) {
    router.post("api/documents/open") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let url = try library.url(body["path"] ?? "")
        let handle = try await documents.open(url)
        try? recents.noteOpened(url)
        return try await state(handle)
      }
    }
    router.post("api/documents/open-in-place") { request, context in
      await api {
        // Documents outside the library, for `quire open` only: the page never holds the token
        // itself (it lives in an HttpOnly cookie), so a request naming it in the header comes
        // from a program the user ran.
        guard request.headers[RequestGuard<BasicRequestContext>.tokenHeader] != nil else {
          throw QuireError(
            .permissionDenied, "Only `quire open` may open documents outside the library.")
        }
        let body = try await request.decode(as: [String: String].self, context: context)
        let path = body["path"] ?? ""
        guard path.hasPrefix("/"), !path.utf8.contains(0) else {
          throw QuireError(.invalidName, "“\(path)” is not an absolute path.")
        }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        guard FileManager.default.fileExists(atPath: url.path) else {
          throw QuireError(.notFound, "There is no document at \(url.path).", path: url.path)
        }
        let handle = try await documents.open(url)
        try? recents.noteOpened(url)
        return try await state(handle)
      }
    }
    router.get("api/documents/state") { request, _ in
      await api { try await state(String(request.uri.queryParameters["handle"] ?? "")) }
    }
    router.post("api/documents/edit") { request, context in
      await api {
        let edit = try await request.decode(as: Edit.self, context: context)
        try await change(edit.handle) { document in
          switch document {
          case let mydoc as MyDocDocument: mydoc.setText(edit.text)
          case let text as TextDocument: text.setText(edit.text ?? "")
          default: throw QuireError(.wrongKind, "This document has no text to edit.")
          }
        }
        return try await state(edit.handle)
      }
    }
    router.post("api/documents/undo") { request, context in
      await api {
        let edit = try await request.decode(as: Edit.self, context: context)
        try await change(edit.handle) { $0.undoManager.undo() }
        return try await state(edit.handle)
      }
    }
    router.post("api/documents/redo") { request, context in
      await api {
        let edit = try await request.decode(as: Edit.self, context: context)
        try await change(edit.handle) { $0.undoManager.redo() }
        return try await state(edit.handle)
      }
    }
    router.post("api/documents/image") { request, _ in
      await api {
        let handle = String(request.uri.queryParameters["handle"] ?? "")
        let name = String(request.uri.queryParameters["name"] ?? "image.png")
        let data = try await upload(request)
        guard (try? RasterImage(decoding: data)) != nil else {
          throw QuireError(.corruptDocument, "“\(name)” is not a PNG or JPEG image.")
        }
        try await change(handle) { document in
          switch document {
          case let mydoc as MyDocDocument: mydoc.setImage(data)
          case let album as AlbumDocument:
            _ = try album.addImage(data, preferredName: try library.name(name))
          default: throw QuireError(.wrongKind, "This document holds no images.")
          }
        }
        return try await state(handle)
      }
    }
    router.post("api/documents/remove-image") { request, context in
      await api {
        let edit = try await request.decode(as: Edit.self, context: context)
        try await change(edit.handle) { document in
          guard let album = document as? AlbumDocument else {
            throw QuireError(.wrongKind, "Only albums have images to remove.")
          }
          try album.removeImage(named: edit.name ?? "")
        }
        return try await state(edit.handle)
      }
    }
    router.get("api/documents/image") { request, _ in
      await api {
        let handle = String(request.uri.queryParameters["handle"] ?? "")
        let name = request.uri.queryParameters["name"].map(String.init)
        var data = try await image(handle, name: name)
        if request.uri.queryParameters["thumbnail"] != nil {
          // The grid shows small copies; the full image is sent only when one is opened.
          let full = data
          data = try await Task.detached(priority: .utility) { () throws -> Data in
            try RasterImage(decoding: full).scaled(toFit: 256).pngData()
          }.value
        }
        let type = data.starts(with: [0x89, 0x50]) ? "image/png" : "image/jpeg"
        return Response(
          status: .ok, headers: [.contentType: type, .cacheControl: "private, max-age=3600"],
          body: .init(byteBuffer: ByteBuffer(bytes: data)))
      }
    }
    router.post("api/documents/resolve") { request, context in
      await api {
        let edit = try await request.decode(as: Edit.self, context: context)
        let resolution: Document.ConflictResolution =
          switch edit.choice {
          case "mine": .keepMine
          case "other": .keepOther
          default: .keepBoth
          }
        let document = try await documents.document(edit.handle)
        try await document.resolveConflict(resolution)
        return try await state(edit.handle)
      }
    }
    router.post("api/documents/save") { request, context in
      await api {
        let edit = try await request.decode(as: Edit.self, context: context)
        let document = try await documents.document(edit.handle)
        _ = await document.autosave()
        return try await state(edit.handle)
      }
    }
    router.post("api/documents/close") { request, context in
      await api {
        let edit = try await request.decode(as: Edit.self, context: context)
        try await documents.close(edit.handle)
        return APIResponse.json(["closed": edit.handle])
      }
    }
  }

  @MainActor
  private func state(_ handle: String) throws -> Response {
    APIResponse.json(try documents.state(handle, library: library))
  }

  /// Runs one change as one undoable step, unless the document is read-only.
  @MainActor
  private func change(_ handle: String, _ body: @MainActor (Document) throws -> Void) throws {
    let document = try documents.document(handle)
    guard !document.documentState.contains(.editingDisabled) else {
      throw QuireError(
        .permissionDenied, "“\(document.localizedName)” is read-only: it cannot be changed here.",
        path: document.fileURL.path)
    }
    try body(document)
    document.undoManager.endEvent()
    documents.touch(handle)
  }

  @MainActor
  private func image(_ handle: String, name: String?) async throws -> Data {
    let document = try documents.document(handle)
    if let mydoc = document as? MyDocDocument, let image = mydoc.image { return image }
    if let album = document as? AlbumDocument, let name {
      return try await album.image(named: name)
    }
    throw QuireError(.notFound, "This document has no such image.")
  }

  private func upload(_ request: Request) async throws -> Data {
    do {
      return Data(buffer: try await request.body.collect(upTo: maxUploadBytes))
    } catch {
      throw QuireError(
        .limitReached, "The image is larger than the \(maxUploadBytes >> 20) MiB the app accepts.")
    }
  }
}
