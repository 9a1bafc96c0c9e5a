import Foundation
import Hummingbird
import NIOCore
import Quire
import QuireSync
import Synchronization

/// The Quire app: a document browser and editors served to a web browser on loopback, over the
/// documents of one library folder — the UIDocumentBrowserViewController role on Linux.
///
/// ```swift
/// let server = try AppServer(AppConfiguration(library: folder, port: 0))
/// try await server.run { url in print("Open \(url)") }
/// ```
public final class AppServer: Sendable {
  /// How it runs.
  public let configuration: AppConfiguration
  private let library: LibraryFolder
  private let registry: TypeRegistry
  private let index: DocumentIndex?
  private let boundPort: Mutex<Int>

  /// A server for `configuration`; its library folder is made if missing, with a welcome
  /// document when new.
  public init(_ configuration: AppConfiguration, index: DocumentIndex? = .shared)
    async throws(QuireError)
  {
    self.configuration = configuration
    let isNew = !FileManager.default.fileExists(atPath: configuration.library.path)
    library = try LibraryFolder(configuration.library)
    registry = TypeRegistry()
    try registry.register(SampleTypes.declarations)
    self.index = index
    boundPort = Mutex(configuration.port)
    if isNew { try await WelcomeDocument.create(in: library.root) }
  }

  /// The address to open, with the token (valid once the server runs).
  public var url: URL {
    let port = boundPort.withLock { $0 }
    return URL(string: "http://\(configuration.host):\(port)/?token=\(configuration.token)")!
  }

  /// Serves until the task is cancelled or the process is asked to stop; `ready` gets the
  /// address to open once the port is bound.
  public func run(ready: @escaping @Sendable (URL) -> Void) async throws {
    let feed = LibraryFeed(library: library, registry: registry, index: index)
    // A synced library's documents have their versions on the sync server (an open document
    // goes inConflict when another device's edit loses to the current version); the others
    // keep theirs on this device.
    AppConfiguration.registerVersionStores(library: library.root)
    let documents = await OpenDocuments(autosaveDelay: configuration.autosaveDelay) { handle in
      Task { await feed.broadcast(event: "document", json: "{\"handle\":\"\(handle)\"}") }
    }
    let recents = RecentDocuments.shared
    let router = Router(context: BasicRequestContext.self)
    router.middlewares.add(
      RequestGuard<BasicRequestContext>(token: configuration.token) { [self] in
        boundPort.withLock { $0 }
      })
    let undo = await BrowserUndo(library: library)
    LibraryRoutes(
      feed: feed, library: library, recents: recents,
      maxUploadBytes: configuration.maxUploadBytes, undo: undo
    ).add(to: router)
    UndoRoutes(undo: undo).add(to: router)
    PreviewRoutes(feed: feed, library: library).add(to: router)
    PlacesRoutes(feed: feed, library: library).add(to: router)
    EditorRoutes(
      library: library, documents: documents, recents: recents,
      maxUploadBytes: configuration.maxUploadBytes
    ).add(to: router)
    VersionRoutes(library: library, documents: documents).add(to: router)
    CloudRoutes(library: library, feed: feed).add(to: router)
    SharingRoutes(library: library).add(to: router)
    let simpleDocuments = SimpleDocumentsFeed(library: library, registry: registry) {
      await feed.broadcast(event: "sicd", json: "{}")
    }
    SimpleDocumentsRoutes(library: library, feed: simpleDocuments).add(to: router)
    SyncStatusRoutes(library: library.root, agentCommand: configuration.syncAgentCommand).add(
      to: router)
    AppPage().add(to: router)
    let application = Application(
      router: router,
      configuration: .init(
        address: .hostname(configuration.host, port: configuration.port), serverName: "Quire"),
      onServerRunning: { [self] channel in
        if let port = channel.localAddress?.port { self.boundPort.withLock { $0 = port } }
        ready(url)
      }
    )
    let following = Task { await feed.run() }
    defer { following.cancel() }
    let followingSimple = Task { await simpleDocuments.run() }
    defer { followingSimple.cancel() }
    do {
      try await application.runService()
    } catch let error as IOError where error.errnoCode == EADDRINUSE {
      throw QuireError(
        .alreadyExists,
        "Port \(configuration.port) on \(configuration.host) is taken (another Quire app?). Choose another with --port N, or --port 0 for any free port.",
        cause: error)
    }
    await documents.closeAll()
  }
}
