extension TypeRegistry {
  /// The system types Quire knows without any declaration file: the part of Apple's type tree
  /// that document apps rely on, with the same identifiers and conformances.
  public static let systemDeclarations = TypeDeclarations(importedTypes: [
    .init(identifier: "public.item", description: "item"),
    .init(identifier: "public.content", description: "content"),
    .init(
      identifier: "public.data", description: "data", conformsTo: ["public.item"],
      mimeTypes: ["application/octet-stream"]),
    .init(
      identifier: "public.directory", description: "folder", conformsTo: ["public.item"],
      mimeTypes: ["inode/directory"]),
    .init(identifier: "public.folder", description: "folder", conformsTo: ["public.directory"]),
    .init(
      identifier: "com.apple.package", description: "package", conformsTo: ["public.directory"]),
    .init(
      identifier: "public.symlink", description: "symbolic link", conformsTo: ["public.item"],
      mimeTypes: ["inode/symlink"]),
    .init(
      identifier: "public.composite-content", description: "composite content",
      conformsTo: ["public.content"]),
    .init(
      identifier: "public.text", description: "text", conformsTo: ["public.data", "public.content"]),
    .init(
      identifier: "public.plain-text", description: "plain text", conformsTo: ["public.text"],
      filenameExtensions: ["txt", "text"], mimeTypes: ["text/plain"]),
    .init(
      identifier: "public.utf8-plain-text", description: "UTF-8 plain text",
      conformsTo: ["public.plain-text"]),
    .init(
      identifier: "net.daringfireball.markdown", description: "Markdown text",
      conformsTo: ["public.plain-text"],
      filenameExtensions: ["md", "markdown"], mimeTypes: ["text/markdown"]),
    .init(
      identifier: "public.html", description: "HTML text", conformsTo: ["public.text"],
      filenameExtensions: ["html", "htm"], mimeTypes: ["text/html"]),
    .init(
      identifier: "public.json", description: "JSON", conformsTo: ["public.text"],
      filenameExtensions: ["json"],
      mimeTypes: ["application/json"]),
    .init(
      identifier: "public.image", description: "image",
      conformsTo: ["public.data", "public.content"]),
    .init(
      identifier: "public.png", description: "PNG image", conformsTo: ["public.image"],
      filenameExtensions: ["png"],
      mimeTypes: ["image/png"]),
    .init(
      identifier: "public.jpeg", description: "JPEG image", conformsTo: ["public.image"],
      filenameExtensions: ["jpeg", "jpg", "jpe"], mimeTypes: ["image/jpeg"]),
    .init(
      identifier: "public.svg-image", description: "SVG image", conformsTo: ["public.image"],
      filenameExtensions: ["svg"], mimeTypes: ["image/svg+xml"]),
    .init(
      identifier: "com.adobe.pdf", description: "PDF document",
      conformsTo: ["public.data", "public.composite-content"],
      filenameExtensions: ["pdf"], mimeTypes: ["application/pdf"]),
    .init(identifier: "public.archive", description: "archive", conformsTo: ["public.data"]),
    .init(
      identifier: "public.zip-archive", description: "ZIP archive", conformsTo: ["public.archive"],
      filenameExtensions: ["zip"], mimeTypes: ["application/zip"]),
  ])
}
