import Foundation

/// Turns a package (or any document) into one portable file and back: a ZIP archive that
/// passes through mail, web uploads and sync services that know nothing of packages, and that
/// `unzip`, Python's `zipfile` and Finder read as the plain folder it is.
///
/// An archive holds the document under its own name (`Report.mydoc/text.txt`, …), with
/// contents, permissions, modification dates (to the ZIP format's two seconds), empty folders and
/// symbolic links that stay inside the document.
///
/// Importing is hardened: names with `..`, absolute names, links leading outside, duplicate
/// names, names Linux cannot store, encrypted entries, damaged data and archive bombs are refused
/// with a ``QuireError``, and nothing is written outside the destination folder — on any failure,
/// nothing is left in it either.
public enum PackageArchive {
  /// Progress of a long export or import: bytes done and bytes in all.
  public typealias Progress = @Sendable (_ completed: Int64, _ total: Int64) -> Void
}
