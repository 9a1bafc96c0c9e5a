import Foundation
import Hummingbird
import Quire
import QuireSync

/// The Versions panel's API: an open document's history (dates, devices, conflicts, a preview
/// of each), one version's contents to read, each version's thumbnail, restoring one, and
/// saving one as a copy beside the document. The versions come from ``Quire/FileVersion``: the sync server's for a synced
/// document, the device's own for the others.
struct VersionRoutes: Sendable {
  let library: LibraryFolder
  let documents: OpenDocuments

  /// One version as the panel lists it.
  struct Summary: Encodable {
    var id: String
    var date: Double?
    var device: String?
    var current: Bool
    var conflict: Bool
    var resolved: Bool
    /// The version's text (text and MyDoc documents), for the read-only view.
    var text: String?
    /// The version's image names (albums).
    var images: [String]?
  }

  struct Choice: Decodable {
    var handle: String
    var id: String
  }

  func add(to router: Router<BasicRequestContext>) {
    router.get("api/documents/versions") { request, _ in
      await api {
        let handle = String(request.uri.queryParameters["handle"] ?? "")
        let url = try await documentURL(handle)
        var summaries: [Summary] = []
        for version in try await Self.versions(of: url) {
          summaries.append(try await Self.summary(version))
        }
        // Another program's version kept aside while this window has unsaved edits.
        for (index, copy) in try await conflictCopies(handle).enumerated() {
          summaries.append(Self.summary(ofCopy: copy, id: "copy-\(index)", item: url))
        }
        return APIResponse.json(Listing(versions: summaries, lock: await Self.lock(of: url)))
      }
    }
    router.get("api/documents/versions/preview") { request, _ in
      await api {
        let url = try await documentURL(String(request.uri.queryParameters["handle"] ?? ""))
        let version = try await Self.version(
          String(request.uri.queryParameters["id"] ?? ""), of: url)
        return APIResponse.json(try await Self.summary(version, reading: true))
      }
    }
    router.get("api/documents/versions/thumbnail") { request, _ in
      await api {
        let handle = String(request.uri.queryParameters["handle"] ?? "")
        let url = try await documentURL(handle)
        let id = String(request.uri.queryParameters["id"] ?? "")
        let copies = try await conflictCopies(handle)
        let contents =
          if let index = Self.copyIndex(id), index < copies.count {
            copies[index]
          } else {
            try await Self.version(id, of: url).contentsURL()
          }
        let drawn = await Task.detached(priority: .utility) {
          GeneratedThumbnails.make(contents)
        }.value
        guard let drawn else {
          throw QuireError(
            .notFound, "This version of “\(url.lastPathComponent)” has no thumbnail.")
        }
        return Response(
          status: .ok, headers: [.contentType: "image/png", .cacheControl: "private, max-age=60"],
          body: .init(byteBuffer: ByteBuffer(bytes: drawn.data)))
      }
    }
    router.post("api/documents/versions/restore") { request, context in
      await api {
        let choice = try await request.decode(as: Choice.self, context: context)
        let url = try await documentURL(choice.handle)
        try await readOnlyCheck(choice.handle)
        try await Self.version(choice.id, of: url).replaceItem(at: url)
        return try await MainActor.run {
          APIResponse.json(try documents.state(choice.handle, library: library))
        }
      }
    }
    router.post("api/documents/versions/copy") { request, context in
      await api {
        let choice = try await request.decode(as: Choice.self, context: context)
        let url = try await documentURL(choice.handle)
        let version = try await Self.version(choice.id, of: url)
        let copy = try Self.copy(try await version.contentsURL(), of: url, saved: version)
        return APIResponse.json(["path": library.relative(copy)])
      }
    }
  }

  @MainActor
  private func documentURL(_ handle: String) throws -> URL {
    try documents.document(handle).fileURL
  }

  @MainActor
  private func conflictCopies(_ handle: String) throws -> [URL] {
    try documents.document(handle).otherVersionURLs
  }

  private static func copyIndex(_ id: String) -> Int? {
    id.hasPrefix("copy-") ? Int(id.dropFirst(5)) : nil
  }

  @MainActor
  private func readOnlyCheck(_ handle: String) throws {
    let document = try documents.document(handle)
    guard !document.documentState.contains(.editingDisabled) else {
      throw QuireError(
        .permissionDenied,
        "“\(document.localizedName)” is read-only: save a version as a copy instead.",
        path: document.fileURL.path)
    }
  }

  /// The panel's list, and the WebDAV lock that holds the document ("Locked by Ana until
  /// 14:05"), if any: edits saved meanwhile are kept as conflict versions.
  struct Listing: Encodable {
    var versions: [Summary]
    var lock: String?
  }

  /// What the panel says of the WebDAV lock on the synced document at `url`; nil if it is not
  /// locked, not synced, or the server cannot be asked now (the list still shows).
  static func lock(of url: URL) async -> String? {
    guard let store = FileVersion.store(for: url) as? SyncVersionStore,
      let lock = try? await store.lock(of: url)
    else { return nil }
    let until = Date(timeIntervalSince1970: lock.expires).formatted(
      date: .abbreviated, time: .shortened)
    return "Locked by \(lock.owner) until \(until), in another app over WebDAV. What you save"
      + " meanwhile is kept as a conflict version."
  }

  /// The current version first, then the others, newest first.
  static func versions(of url: URL) async throws -> [FileVersion] {
    let current = try await FileVersion.currentVersionOfItem(at: url)
    return (current.map { [$0] } ?? []) + (try await FileVersion.otherVersionsOfItem(at: url))
  }

  static func version(_ id: String, of url: URL) async throws -> FileVersion {
    guard let version = try await versions(of: url).first(where: { $0.record.identifier == id })
    else {
      throw QuireError(
        .notFound, "“\(id)” is not a version of “\(url.lastPathComponent)”: reopen the panel.",
        path: url.path)
    }
    return version
  }

  /// The version as listed; with `reading`, its contents are read even if they must be
  /// downloaded first (an old synced version's are otherwise left on the server).
  static func summary(_ version: FileVersion, reading: Bool = false) async throws -> Summary {
    var summary = Summary(
      id: version.record.identifier, date: version.modificationDate?.timeIntervalSince1970,
      device: version.localizedNameOfSavingComputer, current: version.isCurrent,
      conflict: version.isConflict, resolved: version.isResolved)
    let kind = SampleDocuments.Kind(url: version.itemURL)
    guard reading || version.isCurrent || version.hasLocalContents || version.isConflict else {
      return summary  // an old synced version is read only when opened
    }
    fillPreview(&summary, from: try await version.contentsURL(), kind: kind)
    return summary
  }

  /// Another program's version, kept aside while the window has unsaved edits.
  static func summary(ofCopy copy: URL, id: String, item url: URL) -> Summary {
    let modified =
      (try? FileManager.default.attributesOfItem(atPath: copy.path))?[.modificationDate] as? Date
    var summary = Summary(
      id: id, date: modified?.timeIntervalSince1970, device: "another program on this device",
      current: false, conflict: true, resolved: false)
    fillPreview(&summary, from: copy, kind: SampleDocuments.Kind(url: url))
    return summary
  }

  /// What the panel shows of a version's contents: its text, or its images' names.
  private static func fillPreview(
    _ summary: inout Summary, from contents: URL, kind: SampleDocuments.Kind?
  ) {
    switch kind {
    case .text: summary.text = text(contents)
    case .mydoc: summary.text = text(contents.appendingPathComponent("text.txt"))
    case .album, .sicd:
      summary.images = ((try? FileManager.default.contentsOfDirectory(atPath: contents.path)) ?? [])
        .filter { !$0.hasPrefix(".") && $0 != "QuickLook" }.sorted()
    case nil: break
    }
  }

  private static func text(_ url: URL) -> String? {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: 65_536)).map { String(decoding: $0, as: UTF8.self) }
  }

  /// Copies the version beside the document as “Name (version of DATE).ext”, in a coordinated
  /// write, under a name nothing has.
  static func copy(_ contents: URL, of url: URL, saved version: FileVersion) throws -> URL {
    let date = (version.modificationDate ?? Date()).formatted(
      .iso8601.year().month().day().dateSeparator(.dash))
    let folder = url.deletingLastPathComponent()
    let name = FileName.unique(
      url.lastPathComponent,
      marker: { $0 == 1 ? " (version of \(date))" : " (version of \(date)) \($0)" }
    ) { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
    let candidate = folder.appendingPathComponent(name)
    try FileCoordinator().coordinate(writingItemAt: candidate, options: .forReplacing) {
      try FileManager.default.copyItem(at: contents, to: $0)
    }
    try? ItemIdentity.assign(nil, to: candidate)  // a copy is a new document
    return candidate
  }
}
