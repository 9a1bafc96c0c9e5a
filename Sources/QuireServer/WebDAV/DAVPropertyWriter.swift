import Foundation
import NIOCore
import Synchronization

/// Writes the `response` of each resource a PROPFIND lists, with the properties its query
/// asks for. A listing of thousands is written on every core, in as many runs of resources,
/// then joined in order: the answer to a 10 000-item folder is 7 MB of XML.
struct DAVPropertyWriter: Sendable {
  /// What the PROPFIND asks for.
  let query: DAVPropertyQuery
  /// Each property a named query asks for, with its live property if it is one.
  let asked: [(DAVPropertyName, DAVLiveProperty?)]
  /// The resources' dead properties.
  let dead: [DAVPath: [DAVPropertyName: String]]
  /// The locks on the listed resources, as the viewer sees them.
  let locks: [DAVLock]

  /// The fewest resources worth a run of their own on another core.
  static let run = 2048

  /// Appends the responses of `resources`, in order, to `output`.
  func write(_ resources: [DAVResource], to output: inout ByteBuffer) {
    let runs = min(ProcessInfo.processInfo.activeProcessorCount, resources.count / Self.run)
    guard runs > 1 else {
      for resource in resources { write(resource, to: &output) }
      return
    }
    let written = Mutex<[ByteBuffer?]>(Array(repeating: nil, count: runs))
    let size = (resources.count + runs - 1) / runs
    DispatchQueue.concurrentPerform(iterations: runs) { run in
      var part = ByteBuffer()
      part.reserveCapacity(size * 720)
      for resource in resources[(run * size)..<min(resources.count, (run + 1) * size)] {
        write(resource, to: &part)
      }
      written.withLock { $0[run] = part }
    }
    for var part in written.withLock({ $0 }) {
      if part != nil { output.writeBuffer(&part!) }
    }
  }

  /// Appends the `response` of `resource`.
  func write(_ resource: DAVResource, to output: inout ByteBuffer) {
    let covering = locks.isEmpty ? [] : locks.filter { $0.covers(resource.path) }
    let own = dead[resource.path] ?? [:]
    output.writeStaticString("<D:response><D:href>")
    resource.path.writeHref(collection: resource.isCollection, escaped: true, to: &output)
    output.writeStaticString("</D:href>")
    var missing: [DAVPropertyName] = []
    let found = output.writerIndex
    output.writeStaticString("<D:propstat><D:prop>")
    let opened = output.writerIndex
    switch query {
    case .all:
      for live in DAVLiveProperty.allCases {
        _ = live.write(of: resource, locks: covering, to: &output)
      }
      for (name, value) in own.sorted(by: { $0.key.name < $1.key.name }) {
        name.write(value, to: &output)
      }
    case .names:
      var scratch = ByteBuffer()
      for live in DAVLiveProperty.allCases
      where live.write(of: resource, locks: covering, to: &scratch) {
        live.name.write(nil, to: &output)
      }
      for name in own.keys.sorted(by: { $0.name < $1.name }) { name.write(nil, to: &output) }
    case .properties:
      for (name, live) in asked {
        if let live, live.write(of: resource, locks: covering, to: &output) { continue }
        if live == nil, let value = own[name] {
          name.write(value, to: &output)
        } else {
          missing.append(name)
        }
      }
    }
    if output.writerIndex == opened {
      output.moveWriterIndex(to: found)
    } else {
      DAVXML.closePropstat(200, to: &output)
    }
    if !missing.isEmpty {
      output.writeStaticString("<D:propstat><D:prop>")
      for name in missing { name.write(nil, to: &output) }
      DAVXML.closePropstat(404, to: &output)
    }
    output.writeStaticString("</D:response>")
  }
}

extension DAVPropertyWriter {
  /// Writes batches of responses on a thread of its own, in the order they are given, while
  /// the caller goes on reading the next rows; ``finish(into:)`` appends them all.
  final class Background: Sendable {
    private let writer: DAVPropertyWriter
    private let queue = DispatchQueue(label: "net.gacha.quire.propfind")
    private let group = DispatchGroup()
    private let written = Mutex(ByteBuffer())

    init(_ writer: DAVPropertyWriter) { self.writer = writer }

    /// Writes `batch` after the batches before it.
    func write(_ batch: [DAVResource]) {
      queue.async(group: group) { [self] in written.withLock { writer.write(batch, to: &$0) } }
    }

    /// Waits for every batch, and appends what they wrote to `output`.
    func finish(into output: inout ByteBuffer) {
      group.wait()
      _ = written.withLock { output.writeBuffer(&$0) }
    }
  }
}
