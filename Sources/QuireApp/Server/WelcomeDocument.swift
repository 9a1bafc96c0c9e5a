import Foundation
import Quire

/// The document a new library starts with.
enum WelcomeDocument {
  static let text = """
    Welcome to Quire.

    This library is a folder on your disk; everything here is a plain file or package that other \
    programs can read. Create documents with “+”, open one to edit it, and it saves itself. \
    Changes made by other programs show up here at once.
    """

  @MainActor
  static func create(in folder: URL) async throws(QuireError) {
    _ = try await Document.createDocument(named: "Welcome.mydoc", in: folder) { url in
      let document = MyDocDocument(fileURL: url)
      document.setText(text)
      return document
    }
  }
}
