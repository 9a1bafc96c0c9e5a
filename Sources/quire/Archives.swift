import ArgumentParser
import Foundation
import Quire

/// `quire export PACKAGE ARCHIVE.zip`.
struct Export: QuireSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Write a document (package or file) into a single portable ZIP archive.")

  @Argument(help: "The document to export.") var document: String
  @Argument(help: "The archive to write (replaced if it exists).") var archive: String

  func execute() throws {
    let destination = URL(fileURLWithPath: archive)
    // Coordinated: a document open in the app saves its latest edits first, and no other
    // program's save can land halfway through the archive.
    try FileCoordinator().coordinate(
      readingItemAt: URL(fileURLWithPath: document), options: [], writingItemAt: destination,
      options: .forReplacing
    ) { source, target in
      let progress = ProgressLine()
      try PackageArchive.export(source, to: target) { done, total in
        progress.bar("exporting", done, total)
      }
      progress.clear()
    }
    print(destination.path)
  }
}

/// `quire import ARCHIVE DEST-FOLDER`.
struct Import: QuireSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Unpack an archived document into a folder, under its own name (or a unique variant)."
  )

  @Argument(help: "The ZIP archive.") var archive: String
  @Argument(help: "The folder to put the document in.") var folder: String

  func execute() throws {
    let destination = URL(fileURLWithPath: folder)
    var result = destination
    // Coordinated: presenters of the folder (an app's browser, a live query) hear of the new
    // document at once.
    try FileCoordinator().coordinate(writingItemAt: destination, options: .forMerging) { folder in
      let progress = ProgressLine()
      result = try PackageArchive.importArchive(URL(fileURLWithPath: archive), into: folder) {
        done, total in progress.bar("importing", done, total)
      }
      progress.clear()
    }
    print(result.path)
  }
}
