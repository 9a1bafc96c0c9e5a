import Foundation
import Testing

@testable import Quire

@Suite("Type registry")
struct TypeRegistryTests {
  static let myDocJSON = """
    {
      "UTExportedTypeDeclarations": [{
        "UTTypeIdentifier": "net.gacha.mydoc",
        "UTTypeDescription": "MyDoc Document",
        "UTTypeConformsTo": ["com.apple.package", "public.composite-content"],
        "UTTypeTagSpecification": {"public.filename-extension": ["mydoc"], "public.mime-type": "application/x-mydoc"}
      }],
      "CFBundleDocumentTypes": [{
        "CFBundleTypeName": "MyDoc", "CFBundleTypeRole": "Editor", "LSHandlerRank": "Owner",
        "LSItemContentTypes": ["net.gacha.mydoc"], "LSTypeIsPackage": true
      }]
    }
    """

  @Test("system types resolve by identifier, extension and MIME type, with transitive conformance")
  func systemTypes() throws {
    let registry = TypeRegistry()
    let png = try #require(registry.type(forFilenameExtension: "PNG"))
    #expect(png.identifier == "public.png")
    #expect(
      png.conforms(to: "public.image") && png.conforms(to: "public.data")
        && png.conforms(to: "public.item"))
    #expect(!png.conforms(to: "public.text"))
    #expect(
      registry.type(forMIMEType: "text/plain; charset=utf-8")?.identifier == "public.plain-text")
    #expect(registry.type(forFilenameExtension: ".jpg")?.identifier == "public.jpeg")
    #expect(registry.type(withIdentifier: "com.apple.package")?.isPackage == true)
    #expect(registry.type(withIdentifier: "public.folder")?.isPackage == false)
    #expect(
      registry.types(conformingTo: "public.image").map(\.identifier).contains("public.svg-image"))
    #expect(registry.type(forFilenameExtension: "unknownext") == nil)
  }

  @Test("an app's declarations load from JSON with Info.plist keys")
  func jsonDeclarations() throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("types.json")
    try Disk.write(Self.myDocJSON, to: file)
    let registry = TypeRegistry()
    try registry.register(TypeDeclarations(contentsOf: file))
    let mydoc = try #require(registry.type(forFilenameExtension: "mydoc"))
    #expect(mydoc.identifier == "net.gacha.mydoc")
    #expect(mydoc.localizedDescription == "MyDoc Document")
    #expect(
      mydoc.isPackage && mydoc.conforms(to: "public.content")
        && mydoc.conforms(to: "public.directory"))
    #expect(registry.type(forMIMEType: "application/x-mydoc") == mydoc)
    let document = try #require(registry.documentType(for: mydoc))
    #expect(
      document.name == "MyDoc" && document.role == .editor && document.rank == .owner
        && document.isPackage)
  }

  @Test("an Info.plist (XML property list) loads the same declarations")
  func plistDeclarations() throws {
    let declarations = try TypeDeclarations(data: Data(Self.myDocJSON.utf8))
    let encoder = PropertyListEncoder()
    encoder.outputFormat = .xml
    let plist = try encoder.encode(declarations)
    #expect(
      String(decoding: plist, as: UTF8.self).contains("<key>UTExportedTypeDeclarations</key>"))
    let decoded = try TypeDeclarations(data: plist)
    #expect(decoded.exportedTypes == declarations.exportedTypes)
  }

  @Test("an app's type wins its extension over a system type")
  func appTypesWin() throws {
    let registry = TypeRegistry()
    try registry.register(
      TypeDeclarations(exportedTypes: [
        ContentTypeDeclaration(
          identifier: "com.example.notes", conformsTo: ["public.plain-text"],
          filenameExtensions: ["txt"])
      ]))
    #expect(registry.type(forFilenameExtension: "txt")?.identifier == "com.example.notes")
    #expect(registry.type(forFilenameExtension: "txt")?.conforms(to: "public.text") == true)
  }

  @Test("malformed declarations are typed errors and register nothing")
  func invalidDeclarations() throws {
    let registry = TypeRegistry()
    #expect { try TypeDeclarations(data: Data("{ not json".utf8)) } throws: {
      ($0 as? QuireError)?.code == .invalidDeclaration
    }
    #expect {
      try registry.register(
        TypeDeclarations(exportedTypes: [ContentTypeDeclaration(identifier: "bad id/with slash")]))
    } throws: { ($0 as? QuireError)?.code == .invalidDeclaration }
    #expect {
      try registry.register(
        TypeDeclarations(exportedTypes: [
          ContentTypeDeclaration(
            identifier: "com.example.a", conformsTo: ["com.example.b"], filenameExtensions: ["aaa"]),
          ContentTypeDeclaration(identifier: "com.example.b", conformsTo: ["com.example.a"]),
        ]))
    } throws: { ($0 as? QuireError)?.code == .invalidDeclaration }
    #expect(registry.type(forFilenameExtension: "aaa") == nil)
    #expect {
      try TypeDeclarations(contentsOf: URL(fileURLWithPath: "/nonexistent/types.json"))
    } throws: {
      ($0 as? QuireError)?.code == .notFound
    }
  }
}
