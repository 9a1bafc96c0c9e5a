import Foundation

/// An app's document types registered with the desktop the freedesktop.org way, so file managers
/// and `xdg-open` open its documents in the app, in place: a shared-mime-info package
/// (`$XDG_DATA_HOME/mime/packages/NAME.xml`, with globs, and packages declared as sub-classes of
/// `inode/directory`) and a desktop entry (`$XDG_DATA_HOME/applications/NAME.desktop`) whose
/// `MimeType=` lists them and whose `Exec=` opens a file.
public struct DesktopIntegration: Sendable {
  /// The file names' stem: `quire` gives `quire.xml` and `quire.desktop`.
  public var name: String
  /// The app's name in menus.
  public var displayName: String
  /// The command line, with `%f` for the file (`quire open %f`).
  public var exec: String
  /// The types to register.
  public var declarations: TypeDeclarations
  /// The data folder (`$XDG_DATA_HOME`, or `~/.local/share`).
  public var dataHome: URL

  /// An integration for `declarations` under `dataHome`.
  public init(
    name: String, displayName: String, exec: String, declarations: TypeDeclarations,
    dataHome: URL = DesktopIntegration.defaultDataHome
  ) {
    self.name = name
    self.displayName = displayName
    self.exec = exec
    self.declarations = declarations
    self.dataHome = dataHome
  }

  /// `$XDG_DATA_HOME`, or `~/.local/share`.
  public static var defaultDataHome: URL { XDGDirectory.data.deletingLastPathComponent() }

  /// Where the MIME package goes.
  public var mimePackageURL: URL { dataHome.appendingPathComponent("mime/packages/\(name).xml") }
  /// Where the desktop entry goes.
  public var desktopEntryURL: URL {
    dataHome.appendingPathComponent("applications/\(name).desktop")
  }

  /// The MIME types of the declared document types that have one.
  public var mimeTypes: [String] {
    let exported = declarations.exportedTypes + declarations.importedTypes
    var types: [String] = []
    for document in declarations.documentTypes {
      for identifier in document.contentTypes {
        if let declared = exported.first(where: { $0.identifier == identifier }) {
          types += declared.mimeTypes.prefix(1)
        } else if identifier == "public.plain-text" {
          types.append("text/plain")
        }
      }
    }
    return types
  }

  /// The shared-mime-info XML for the exported types.
  public var sharedMIMEInfo: String {
    var xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">

      """
    for type in declarations.exportedTypes {
      guard let mime = type.mimeTypes.first else { continue }
      let isPackage = type.conformsTo.contains("com.apple.package")
      xml += "  <mime-type type=\"\(MarkupText.escape(mime))\">\n"
      xml += "    <comment>\(MarkupText.escape(type.description ?? type.identifier))</comment>\n"
      if isPackage { xml += "    <sub-class-of type=\"inode/directory\"/>\n" }
      for ext in type.filenameExtensions {
        xml += "    <glob pattern=\"*.\(MarkupText.escape(ext))\"/>\n"
      }
      xml += "  </mime-type>\n"
    }
    return xml + "</mime-info>\n"
  }

  /// The desktop entry.
  public var desktopEntry: String {
    """
    [Desktop Entry]
    Type=Application
    Name=\(displayName)
    Comment=Open and edit \(displayName) documents in place
    Exec=\(exec)
    Terminal=false
    Categories=Office;
    MimeType=\(mimeTypes.map { $0 + ";" }.joined())

    """
  }

  /// Writes both files and refreshes the desktop's databases (where their tools are installed);
  /// returns the files written.
  @discardableResult
  public func install() throws(QuireError) -> [URL] {
    for (url, text) in [(mimePackageURL, sharedMIMEInfo), (desktopEntryURL, desktopEntry)] {
      do {
        try FileManager.default.createDirectory(
          at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url, options: .atomic)
      } catch {
        throw QuireError(
          .ioError, "Could not write \(url.path). Check that the folder is writable.",
          path: url.path, cause: error)
      }
    }
    refreshDatabases()
    return [mimePackageURL, desktopEntryURL]
  }

  /// Removes both files and refreshes the databases; returns the files removed.
  @discardableResult
  public func uninstall() -> [URL] {
    let removed = [mimePackageURL, desktopEntryURL].filter {
      (try? FileManager.default.removeItem(at: $0)) != nil
    }
    refreshDatabases()
    return removed
  }

  private func refreshDatabases() {
    run("update-mime-database", [dataHome.appendingPathComponent("mime").path])
    run("update-desktop-database", [dataHome.appendingPathComponent("applications").path])
  }

  private func run(_ tool: String, _ arguments: [String]) {
    let path = ["/usr/bin/", "/bin/", "/usr/local/bin/"].map { $0 + tool }
      .first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let path else { return }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try? process.run()
    process.waitUntilExit()
  }

}
