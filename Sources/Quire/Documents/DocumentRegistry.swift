import Foundation

/// The open documents of this process, so they can all be saved when it is asked to terminate.
@MainActor
final class DocumentRegistry {
  static let shared = DocumentRegistry()
  private var documents: [ObjectIdentifier: WeakDocument] = [:]

  private struct WeakDocument {
    weak var document: Document?
  }

  func add(_ document: Document) {
    documents[ObjectIdentifier(document)] = WeakDocument(document: document)
  }
  func remove(_ document: Document) { documents[ObjectIdentifier(document)] = nil }

  var openDocuments: [Document] { documents.values.compactMap(\.document) }
}
