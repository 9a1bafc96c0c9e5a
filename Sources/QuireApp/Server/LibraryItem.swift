import Foundation
import Quire

/// One document or folder as the page shows it.
struct LibraryItem: Encodable {
  var path: String
  var name: String
  var kind: String
  var type: String
  var isFolder: Bool
  var size: Int64
  var modified: Date
  var tags: [String]
  var id: String

  init(_ item: DocumentQuery.Item, library: LibraryFolder) {
    path = library.relative(item.url)
    name = item.name
    isFolder = item.isFolder
    type = item.contentType
    kind = item.isFolder ? "folder" : (SampleDocuments.Kind(url: item.url)?.rawValue ?? "other")
    size = item.size
    modified = item.modificationDate
    tags = item.tags
    id = item.identity ?? path
  }
}
