import Quire

/// The document types of Quire's sample apps, declared the way an app ships them.
public enum SampleTypes {
  /// The declarations of MyDoc, Album, SimpleiCloudDocument and Text, as an app's Info.plist
  /// would carry them.
  public static let declarations = TypeDeclarations(
    exportedTypes: [
      ContentTypeDeclaration(
        identifier: "net.gacha.mydoc", description: "MyDoc Document",
        conformsTo: ["com.apple.package", "public.composite-content"],
        filenameExtensions: ["mydoc"],
        mimeTypes: ["application/x-mydoc"]),
      ContentTypeDeclaration(
        identifier: "org.quire.album", description: "Photo Album",
        conformsTo: ["com.apple.package", "public.composite-content"],
        filenameExtensions: ["album"],
        mimeTypes: ["application/x-quire-album"]),
      ContentTypeDeclaration(
        identifier: "org.quire.simple-icloud-document", description: "SimpleiCloudDocument",
        conformsTo: ["com.apple.package", "public.composite-content"],
        filenameExtensions: ["sicd"],
        mimeTypes: ["application/x-quire-sicd"]),
    ],
    documentTypes: [
      DocumentTypeDeclaration(
        name: "MyDoc", contentTypes: ["net.gacha.mydoc"], role: .editor, rank: .owner,
        isPackage: true),
      DocumentTypeDeclaration(
        name: "Text", contentTypes: ["public.plain-text"], role: .editor, rank: .alternate),
      DocumentTypeDeclaration(
        name: "Album", contentTypes: ["org.quire.album"], role: .editor, rank: .owner,
        isPackage: true),
      DocumentTypeDeclaration(
        name: "SimpleiCloudDocument", contentTypes: ["org.quire.simple-icloud-document"],
        role: .editor, rank: .owner, isPackage: true),
    ])
}
