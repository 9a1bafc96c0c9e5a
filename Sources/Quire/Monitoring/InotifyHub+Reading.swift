import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension InotifyHub {
  /// The reading thread: waits for events or for the next batch to be due, dispatches events to
  /// the subscribers holding their descriptors, and reports each subscriber's batch once it has
  /// had a quiet moment (its coalescing interval) or is ``maximumBatchAge`` old.
  func run() {
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let timeout = state.withLock { Self.timeout(for: $0, now: .now) }
      var descriptor = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
      let ready = poll(&descriptor, 1, timeout)
      if ready < 0 && cquire_errno() == EINTR { continue }
      let raw = ready > 0 ? readEvents(buffer: &buffer) : []
      var deliveries: [Delivery] = []
      let unpaired = state.withLock { state in
        dispatch(raw, &state, &deliveries)
        return Self.unpairedMoveFolders(state, now: .now)
      }
      if !unpaired.isEmpty {
        // A batch about to end holds the first half of a move whose second half no watch has
        // reported. The kernel queues both halves inside the rename, while it holds the source
        // folder's lock; reading that folder takes the lock, so once the read returns the
        // rename is over, and its second half, if any watch of this process can see it, is in
        // the queue. (Without this, a reader woken between the two halves on a loaded machine
        // reported an open document moved between watched folders as deleted.)
        for folder in unpaired { Self.waitForRenames(in: folder) }
        let more = readEvents(buffer: &buffer)
        state.withLock { dispatch(more, &$0, &deliveries) }
      }
      state.withLock { flushDue(&$0, now: .now, &deliveries) }
      for delivery in deliveries {
        switch delivery {
        case .events(let events, let continuation):
          for event in events { continuation.yield(event) }
        case .finish(let error, let continuation):
          if let error { continuation.finish(throwing: error) } else { continuation.finish() }
        }
      }
    }
  }

  /// The folders left by moves still waiting for their other half, in the batches due now, that
  /// no watch of the process has seen arrive.
  static func unpairedMoveFolders(_ state: State, now: ContinuousClock.Instant) -> Set<String> {
    var folders: Set<String> = []
    for subscriber in state.subscribers.values {
      guard let start = subscriber.batchStart, let last = subscriber.lastEvent,
        now - last >= subscriber.coalescing || now - start >= maximumBatchAge
      else { continue }
      for move in subscriber.translator.unpairedMoves where state.arrivals[move.cookie] == nil {
        folders.insert(move.folder)
      }
    }
    return folders
  }

  /// Returns once no rename holds `folder`'s lock: listing a folder takes its lock, which a
  /// rename out of it holds while the kernel reports both halves of the move.
  static func waitForRenames(in folder: String) {
    guard let directory = opendir(folder) else { return }  // gone: nothing to wait for
    _ = readdir(directory)
    closedir(directory)
  }

  /// Milliseconds until the earliest subscriber's batch is due (-1: none pending).
  static func timeout(for state: State, now: ContinuousClock.Instant) -> Int32 {
    var earliest: ContinuousClock.Instant?
    for subscriber in state.subscribers.values {
      guard let start = subscriber.batchStart, let last = subscriber.lastEvent else { continue }
      let due = min(last + subscriber.coalescing, start + maximumBatchAge)
      earliest = earliest.map { min($0, due) } ?? due
    }
    guard let earliest else { return -1 }
    let left = earliest - now
    if left <= .zero { return 0 }
    return Int32(
      left.components.seconds * 1000 + (left.components.attoseconds + 999_999_999_999_999)
        / 1_000_000_000_000_000)
  }

  private func readEvents(buffer: inout [UInt8]) -> [InotifyTranslator.RawEvent] {
    var events: [InotifyTranslator.RawEvent] = []
    while true {
      let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
      guard count > 0 else { return events }
      var offset = 0
      buffer.withUnsafeBytes { bytes in
        while offset + 16 <= count {
          let descriptor = bytes.load(fromByteOffset: offset, as: Int32.self)
          let mask = bytes.load(fromByteOffset: offset + 4, as: UInt32.self)
          let cookie = bytes.load(fromByteOffset: offset + 8, as: UInt32.self)
          let length = Int(bytes.load(fromByteOffset: offset + 12, as: UInt32.self))
          let nameBytes = bytes[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
          events.append(
            .init(
              descriptor: descriptor, mask: mask, cookie: cookie,
              name: String(decoding: nameBytes, as: UTF8.self)))
          offset += 16 + length
        }
      }
    }
  }

  /// Hands each event to the subscribers holding its descriptor (an overflow to all of them),
  /// and carries out the watches their translators ask for.
  private func dispatch(
    _ raw: [InotifyTranslator.RawEvent], _ state: inout State, _ deliveries: inout [Delivery]
  ) {
    guard !raw.isEmpty else { return }
    var touched: Set<Int> = []
    for event in raw {
      let overflow = event.mask & UInt32(IN_Q_OVERFLOW) != 0
      let ids = overflow ? Set(state.subscribers.keys) : state.holders[event.descriptor] ?? []
      for id in ids {
        state.subscribers[id]?.translator.translate(event)
        touched.insert(id)
      }
      if event.mask & UInt32(IN_MOVED_TO) != 0 {
        let subscribers = state.subscribers
        if let folder = ids.compactMap({ subscribers[$0]?.translator.paths[event.descriptor] })
          .first
        {
          state.noteArrival(cookie: event.cookie, path: folder + "/" + event.name)
        }
      }
      if event.mask & UInt32(IN_IGNORED) != 0, let holders = state.holders[event.descriptor] {
        state.holders[event.descriptor] = nil
        for id in holders { state.subscribers[id]?.descriptors.remove(event.descriptor) }
      }
    }
    let now = ContinuousClock.now
    for id in touched {
      guard var subscriber = state.subscribers[id] else { continue }
      do throws(QuireError) {
        try perform(subscriber.translator.takeActions(), id: id, &subscriber, &state)
      } catch {
        end(id, subscriber, error: error, &state, &deliveries)
        continue
      }
      if subscriber.batchStart == nil { subscriber.batchStart = now }
      subscriber.lastEvent = now
      state.subscribers[id] = subscriber
    }
  }

  /// Reports the batches that are due.
  private func flushDue(
    _ state: inout State, now: ContinuousClock.Instant, _ deliveries: inout [Delivery]
  ) {
    for (id, var subscriber) in state.subscribers {
      guard let start = subscriber.batchStart, let last = subscriber.lastEvent,
        now - last >= subscriber.coalescing || now - start >= Self.maximumBatchAge
      else { continue }
      subscriber.batchStart = nil
      subscriber.lastEvent = nil
      let arrivals = state.arrivals
      let (events, actions) = subscriber.translator.flush { arrivals[$0] }
      do throws(QuireError) { try perform(actions, id: id, &subscriber, &state) } catch {
        end(id, subscriber, error: error, &state, &deliveries)
        continue
      }
      let discovered = subscriber.translator.flush().events
      deliveries.append(.events(events + discovered, subscriber.continuation))
      if subscriber.translator.paths.isEmpty {  // the watched item itself is gone
        end(id, subscriber, error: nil, &state, &deliveries)
      } else {
        state.subscribers[id] = subscriber
      }
    }
  }

  private func perform(
    _ actions: [InotifyTranslator.Action], id: Int, _ subscriber: inout Subscriber,
    _ state: inout State
  ) throws(QuireError) {
    for action in actions {
      switch action {
      case .watch(let path):
        guard subscriber.recursive else { continue }
        try watchTree(path, id: id, &subscriber, &state, reportContents: true)
      case .forget(let path):
        let gone = subscriber.translator.forget(path)
        subscriber.descriptors.subtract(gone)
        release(gone, id: id, &state)
      }
    }
  }

  private func end(
    _ id: Int, _ subscriber: Subscriber, error: QuireError?, _ state: inout State,
    _ deliveries: inout [Delivery]
  ) {
    state.subscribers[id] = nil
    release(subscriber.descriptors, id: id, &state)
    deliveries.append(.finish(error, subscriber.continuation))
  }
}
