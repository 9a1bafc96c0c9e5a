import Foundation
import Quire
import QuireCore
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// The device agent (`quire sync run`): keeps a folder and a container of a Quire Sync server
/// the same, in both directions, the moment either changes.
///
/// - It hears local changes through the file monitor (coordinated writers and every other
///   program alike) and uploads a change within milliseconds: only the members that changed,
///   read inside a coordinated read, so it never uploads a torn package.
/// - It hears remote changes through the server's event stream and applies each inside a
///   coordinated write, as one crash-safe package save of the changed members: an open
///   ``Quire/Document`` reloads and a running ``Quire/DocumentQuery`` updates.
/// - Its synced tree (what both sides last agreed on) is in SQLite, so it resumes after a kill.
/// - A rename or move is a metadata commit; a deletion moves the local item to the Trash; an
///   edit made on a stale revision is merged by the server, and what does not merge is kept
///   there as a conflict version, which the item's presenters (an open document) hear of.
public actor SyncAgent {
  /// The synced folder (the container's `Documents` scope).
  public nonisolated let folder: URL
  let settings: SyncSettings
  let client: SyncClient
  let state: SyncState
  let stateFile: URL
  let trash: Trash
  var synced = SyncedTree()
  /// Spools of downloads cut part way, for their next try.
  var unfinished = UnfinishedDownloads()
  /// Each item's unresolved conflict revisions, as last announced to its presenters.
  var knownConflicts: [String: [Int64]] = [:]
  /// Whether the folder may hold changes no push has seen. Each time it becomes true, what the
  /// last scan found (``scannedUnsynced``) stops being trusted.
  var needsPush = false {
    didSet {
      if needsPush {
        localGeneration &+= 1
        changedScopes = nil  // asked for without saying where: a whole scan
      }
    }
  }
  /// Where the folder changed since the last push began, as its monitor said
  /// (``requestPush(changed:)``); nil when the next push must scan the whole folder: at start,
  /// after an overflow or a re-armed watch, after a failed step, and when the agent asks for a
  /// push itself. A push then costs what changed, not the size of the drive.
  var changedScopes: ChangedScopes?
  /// Items held while a program's write to them is put back late, with the put-backs left
  /// (``holdForPutBack(_:count:)``).
  var putBacksPending: [String: Int] = [:]
  /// The paths of items the last push could not sync (a writer still at it, an error): the
  /// next push looks at them again, whatever changed.
  var failedPaths: [String] = []
  var needsPull = false
  /// Counts the times the folder was said to have changed (``needsPush``): a scan's result
  /// still describes the folder while this has not moved since it was taken.
  var localGeneration = 0
  /// The items the last whole scan found that this device has not synced, by identity, and the
  /// ``localGeneration`` it was taken at. A first sync's pulls use it rather than scanning the
  /// folder once per pull: with the agent's own writes asking for no push
  /// (``FolderEventFilter``), a folder filling with a hundred thousand downloads is scanned
  /// once, not once for each of the sender's batches.
  var scannedUnsynced: (generation: Int, items: [String: LocalItem])?
  /// Journal entries whose download stopped because the item changed here meanwhile
  /// (`changedWhileSyncing`), with the attempts made: the pull after the next push applies
  /// them again, since the cursor has moved past them.
  var changedEntries: [(entry: ChangeEntry, attempts: Int)] = []
  /// The last folder moves applied, with the highest revision each took
  /// (``applyFolderMove(_:revisionsBefore:)``).
  var appliedMoves: [(move: FolderMove, revisionsBefore: Int64)] = []
  var wake: AsyncStream<Void>.Continuation?
  var retryPause = RetryPause()
  /// The marker whose presence pauses the agent (``SyncSettings/pauseMarker``).
  let pauseMarker: URL
  var paused = false
  /// The agent's shared lock on ``SyncActivity``'s file while it is not paused or is finishing
  /// a step; nil once it has stopped for a pause (or if the lock could not be taken).
  var activity: Int32?
  /// What this device downloads of new documents (``SyncSettings/downloadPolicy(for:)``).
  var downloadPolicy: DownloadPolicy
  /// Downloads and evictions asked for (``ask(_:at:)``), done by the worker before its next
  /// step.
  var asked:
    [(
      kind: Asked, path: String, progress: DownloadProgress?,
      done: CheckedContinuation<Void, any Error>
    )] = []

  /// A download or eviction asked of the worker.
  enum Asked: Sendable { case download, evict }

  /// The share this agent syncs (an item another account shares with this one, in
  /// ``sharedFolderName``), or nil for the account's own container.
  let share: ShareInfo?
  /// The drive's folder, where a participant's changes that a share does not take are kept
  /// ("Name (my changes)") and synced as the account's own.
  let drive: URL
  /// How often the drive's agent asks the server which items are shared with the account.
  let sharesInterval: Duration
  /// The identities of the items shared with this account, as the drive's agent last heard.
  var sharedItems = Set<String>()
  /// The waits this agent answers (``SyncBarrier``).
  var waits = AgentWaits()
  /// The drive's agent: the waits for a look at what is shared with the account.
  var shareLooks = ShareLooks()
  /// Called each time the worker has done everything asked, without an error.
  var caughtUp: (@Sendable () -> Void)?
  /// Where the agent's items are: ``folder``, except for the agent of a shared document the
  /// participant moved out of ``sharedFolderName``, whose root is the folder it was moved to.
  var root: URL
  /// The drive's agent, for a share's agent: asked where a shared document went when it is
  /// not where it was.
  weak var parent: SyncAgent?
  /// The drive's agent: the shares' agents, by item identity for a document share and by
  /// ``shareKey(_:)`` for a folder share.
  var shareAgents: [String: SyncAgent] = [:]
  /// The drive's agent: where each shared document or folder is in the drive (a path relative
  /// to it), keyed as ``shareAgents``; read from the shares' states at start, so a share moved
  /// anywhere is never taken for documents of the account's own.
  var shareLocations: [String: String] = [:]
  /// The drive's agent: the documents the shared folders' agents synced, as their states said
  /// at start, and the key of their share (a running agent is asked:
  /// ``isMovedWithSharedFolder(_:)``).
  var folderShareItems: [String: String] = [:]

  /// An agent for `folder`, with its state in `stateFile`.
  /// It pauses while `pauseMarker` exists. `download` overrides the folder's download policy
  /// in `settings`; a change of the settings file beside `pauseMarker` applies at once.
  /// It asks which items other accounts share with this one whenever the server says they
  /// changed, and every `sharesEvery` besides, and syncs them in `folder`'s
  /// ``sharedFolderName`` folder.
  public init(
    settings: SyncSettings, folder: URL, stateFile: URL, trash: Trash = .home,
    pauseMarker: URL = SyncSettings.pauseMarker, download: DownloadPolicy? = nil,
    sharesEvery: Duration = .seconds(30)
  ) throws(SyncError) {
    self.pauseMarker = pauseMarker
    self.folder = folder.standardizedFileURL
    self.settings = settings
    client = SyncClient(
      server: settings.server, token: settings.token, container: settings.container,
      http: try TrustedHTTPClient.trusting(settings.certificateAuthority))
    state = try SyncState(file: stateFile)
    self.stateFile = stateFile
    self.trash = trash
    downloadPolicy = download ?? settings.downloadPolicy(for: folder)
    share = nil
    drive = self.folder
    root = self.folder
    sharesInterval = sharesEvery
  }

  /// The agent of `share`, for the drive agent `parent`: it syncs the shared item in the
  /// parent's ``sharedFolderName`` folder, through the share's routes, with its own state.
  init(share: ShareInfo, parent: SyncAgent) throws(SyncError) {
    pauseMarker = parent.pauseMarker
    folder = parent.folder.appendingPathComponent(Self.sharedFolderName)
    settings = parent.settings
    client = SyncClient(
      server: parent.client.server, token: parent.client.token, share: share.id,
      http: parent.client.http)
    stateFile = Self.stateFile(of: share.id, parent: parent.stateFile)
    state = try SyncState(file: stateFile)
    trash = parent.trash
    downloadPolicy = .all
    self.share = share
    drive = parent.folder
    root = Self.shareRoot(share, drive: parent.folder, state: state)
    self.parent = parent
    sharesInterval = parent.sharesInterval
    // For SyncStatusSource: the share's role and owner, the items' sharing keys.
    if let json = try? JSONEncoder().encode(share) {
      state.setValue(String(decoding: json, as: UTF8.self), for: "share")
    }
  }

  /// The default state file for `folder`: under `$XDG_STATE_HOME/quire/sync/`, one per folder
  /// (`XDG_STATE_HOME` as `environment` has it).
  public static func defaultStateFile(
    for folder: URL, environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> URL {
    let base = XDGBase.state.folder(environment: environment)
    let key = ContentHash(of: Array(folder.standardizedFileURL.path.utf8)).hex.prefix(16)
    return base.appendingPathComponent("quire/sync/\(key).sqlite")
  }

  /// Syncs until the task is cancelled: first whatever changed while it was not running, then
  /// every change as it happens. `ready` is called once the first catch-up is done.
  ///
  /// One worker does all the syncing, one step at a time; the server's event stream and the
  /// folder's monitor only ask it for a pull or a push. So an upload and a download of the same
  /// item never interleave, and a burst of events costs one scan.
  ///
  /// - Throws: ``SyncError`` `alreadyExists` if another agent syncs the same folder (two
  ///   would race each other's uploads and downloads); the agent holds a lock beside its state.
  public func run(ready: @escaping @Sendable () -> Void = {}) async throws {
    defer { endWaits() }
    let lock = try lockFolder()
    defer { Sys.close(lock) }
    do { try Sys.makeFolders(folder.path) } catch {
      throw SyncError(
        .unavailable, "Could not make the synced folder “\(folder.path)”: \(error.reason).",
        cause: error)
    }
    if share == nil {
      removeLeftovers()  // a share's folder is the drive's, cleaned by it
      loadShareLocations()
    }
    knownConflicts = state.unresolvedConflicts()
    do { synced = try state.syncedTree() } catch {
      throw SyncError(.unavailable, "The sync state could not be read: \(error).", cause: error)
    }
    let (requests, requester) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    wake = requester
    // The lock first, then the marker: a pause made in between waits for this agent, which
    // stops at its first step.
    setActive(true)
    defer { setActive(false) }
    paused = SyncSettings.isPaused(marker: pauseMarker)
    needsPush = true
    needsPull = true
    let provider = AgentProvider(agent: self)
    if share == nil {  // a share's agent downloads everything: it has no placeholders
      try? FileCoordinator.addFilePresenter(provider)  // without it, reads of placeholders fail
    }
    defer { FileCoordinator.removeFilePresenter(provider) }
    await work()
    ready()
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.listenToServer() }
      group.addTask { await self.listenToFolder() }
      group.addTask { await self.listenToSettings() }
      if share == nil { group.addTask { await self.followShares() } }
      group.addTask {
        for await _ in requests { await self.work() }
      }
      await group.next()
      group.cancelAll()
    }
  }

  /// Asks the worker to download the placeholder item at `path` (relative), or to evict the
  /// item there, and waits until it did.
  func ask(_ kind: Asked, at path: String, progress: DownloadProgress? = nil) async throws {
    try await withCheckedThrowingContinuation { continuation in
      asked.append((kind, path, progress, continuation))
      wake?.yield()
    }
  }

  /// Sets what is called each time the worker has caught up (``caughtUp``).
  func setCaughtUp(_ body: @escaping @Sendable () -> Void) { caughtUp = body }

  /// Asks the worker for a push (the folder changed) or a pull (the server's journal grew).
  func request(push: Bool = false, pull: Bool = false) {
    if push { needsPush = true }
    if pull { needsPull = true }
    wake?.yield()
  }

  /// Does what was asked until nothing is left; a failure is noted and, if the server was
  /// unreachable, the step is asked for again after a pause that grows while it stays away.
  private func work() async {
    while needsPush || needsPull || !asked.isEmpty || paused {
      // Read at each step, not only heard from the settings' watch, which starts after the
      // first catch-up: a pause then stops the agent after the step in flight too.
      if !paused && SyncSettings.isPaused(marker: pauseMarker) { paused = true }
      if paused {
        // Stopped after the step in flight: what is asked stays asked, for the resume.
        state.setConnection(.paused)
        for job in asked {
          job.done.resume(
            throwing: SyncError(
              .unavailable, "Syncing is paused; resume it with quire sync resume, then try again.")
          )
        }
        asked = []
        setActive(false)
        return
      }
      while !asked.isEmpty {
        if await takeMemberDownloads() { continue }
        let job = asked.removeFirst()
        do {
          switch job.kind {
          case .download: try await downloadPlaceholder(at: job.path, progress: job.progress)
          case .evict: try await evict(at: job.path)
          }
          job.done.resume()
        } catch {
          job.done.resume(throwing: error)
        }
      }
      guard needsPush || needsPull else { break }
      do {
        if needsPush {
          needsPush = false
          try await pushRequested()
        }
        if needsPull {
          needsPull = false
          try await pull()
        }
        state.setConnection(.online)
        state.setValue(nil, for: "lastError")
        retryPause.reset()
        if !needsPush && !needsPull && asked.isEmpty {
          caughtUp?()
          answerWaits()
        }
      } catch {
        note(error)
        needsPush = true
        needsPull = true
        if paused { continue }  // stops now; the resume tries again
        let pause = retryPause.pause(after: error)
        Task { [weak self] in
          try? await Task.sleep(for: pause)  // back-off before retrying, not a wait for an event
          await self?.request()
        }
        return
      }
    }
  }

  func note(_ error: any Error) {
    var message = (error as? SyncError)?.message ?? (error as? QuireError)?.message ?? "\(error)"
    let diskFull = DiskFull.caused(error)
    if diskFull {
      message =
        "This device's disk is full: free some space, and syncing goes on from where it stopped (\(message))"
    }
    state.setValue(message, for: "lastError")
    // A full disk here says nothing of the server: the connection stays as the last response
    // (``noteServerReached()``) or failure to reach it left it.
    if !diskFull && (error as? SyncError)?.code == .unavailable {
      state.setConnection(.offline)
    }
  }

  /// The server answered: a connection marked offline is online again, even if this round
  /// then fails here (a full disk).
  func noteServerReached() {
    guard state.connection == .offline else { return }
    state.setConnection(.online)
  }

  /// Follows the server's event stream; each event asks for a pull. A dropped stream is reopened
  /// with a pause that grows while the server is away, and asks for a catch-up.
  private func listenToServer() async {
    var pause = Duration.milliseconds(100)
    while !Task.isCancelled {
      do {
        for try await _ in client.events(since: state.cursor) {
          pause = .milliseconds(100)
          request(pull: true)
        }
      } catch {
        note(error)
      }
      if Task.isCancelled { return }
      try? await Task.sleep(for: pause)  // back-off before reconnecting, not a wait for an event
      pause = min(pause * 2, .seconds(5))
      request(push: true, pull: true)
    }
  }

  /// Takes the lock of this folder's state (`….sqlite.lock`), held while the agent runs and
  /// released by the kernel if it dies.
  private func lockFolder() throws(SyncError) -> Int32 {
    let path = stateFile.path + ".lock"
    let fd: Int32
    do {
      fd = try Sys.open(path, O_RDWR | O_CREAT, mode: 0o600)
    } catch {
      throw SyncError(
        .unavailable, "Could not open “\(path)” to lock the sync state.", cause: error)
    }
    do {
      try Sys.lock(fd, LOCK_EX | LOCK_NB)
    } catch {
      Sys.close(fd)
      throw SyncError(
        .alreadyExists,
        "Another quire sync run is already syncing “\(folder.path)”; stop it first (systemctl --user stop quire-sync, if it runs as a service).",
        cause: error)
    }
    return fd
  }

  /// Removes the temporary files and staging folders (`.quire-sync-…`) of downloads that a kill
  /// or a crash cut short: no one else writes those names, and none is in use before the agent
  /// runs. The folder is walked once, at start.
  private func removeLeftovers() {
    Self.removeLeftovers(in: folder.path)
  }

  /// Removes the `.quire-sync-…` items in the folder at `path` and in every folder below it.
  static func removeLeftovers(in path: String) {
    for name in (try? Sys.names(in: path)) ?? [] {
      let item = path + "/" + name
      if name.hasPrefix(".quire-sync-") {
        try? Sys.removeTree(item)
      } else if let info = try? Sys.status(item), LocalScanner.isDirectory(info) {
        removeLeftovers(in: item)
      }
    }
  }

  /// The file system's time now in the synced folder, in nanoseconds (see
  /// ``SyncedItem/Member/racy``); if it cannot be read, the largest time, which trusts no stat.
  func fileSystemNow() -> Int64 {
    (try? Sys.fileSystemNow(in: folder.path)) ?? .max
  }

  /// The URL of the item at `relative` in the folder.
  func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }
}
