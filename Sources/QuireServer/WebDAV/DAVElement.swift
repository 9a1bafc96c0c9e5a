import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// An XML element of a WebDAV request body, with its namespace resolved: what PROPFIND,
/// PROPPATCH and LOCK bodies are read into. Parsed with Foundation's `XMLParser` (libxml2),
/// which resolves no external entity; the depth and size are bounded here.
struct DAVElement: Sendable {
  /// The namespace URI ("DAV:" for WebDAV's own).
  var namespace: String
  /// The local name.
  var name: String
  /// The elements inside it, in order.
  var children: [DAVElement] = []
  /// Its text (the concatenation of its text nodes).
  var text = ""

  /// The deepest nesting a body may have.
  static let maximumDepth = 64

  /// The first child named `name` in `DAV:`.
  func child(_ name: String) -> DAVElement? {
    children.first { $0.namespace == "DAV:" && $0.name == name }
  }

  /// Parses `bytes`; `nil` for an empty body. Malformed XML, or XML nested deeper than
  /// ``maximumDepth``, is a 400.
  static func parse(_ bytes: [UInt8]) throws(DAVError) -> DAVElement? {
    guard bytes.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) })
    else { return nil }
    let builder = Builder()
    let parser = XMLParser(data: Data(bytes))
    parser.shouldProcessNamespaces = true
    parser.shouldReportNamespacePrefixes = true
    parser.shouldResolveExternalEntities = false
    parser.delegate = builder
    guard parser.parse(), !builder.tooDeep, !builder.emptyPrefix, let root = builder.root else {
      throw DAVError(
        .badRequest, .malformed,
        builder.tooDeep
          ? "The request's XML is nested deeper than \(maximumDepth) levels."
          : "The request body is not well-formed XML.")
    }
    return root
  }

  /// Its contents (children and text) written back as XML, each element declaring its own
  /// namespace: a dead property's value, stored and returned as the client sent it.
  var innerXML: String {
    var output = ""
    if children.isEmpty {
      output = DAVXML.escape(text)
    } else {
      for child in children { child.write(to: &output) }
    }
    return output
  }

  private func write(to output: inout String) {
    let tag = namespace.isEmpty ? name : "x:\(name)"
    let declaration = namespace.isEmpty ? "" : " xmlns:x=\"\(DAVXML.escape(namespace))\""
    output += "<\(tag)\(declaration)>"
    output += innerXML
    output += "</\(tag)>"
  }

  /// Builds the tree from the parser's events.
  private final class Builder: NSObject, XMLParserDelegate {
    var stack: [DAVElement] = []
    var root: DAVElement?
    var tooDeep = false
    /// Whether a prefix was bound to the empty namespace (`xmlns:a=""`), which XML Namespaces
    /// 1.0 forbids and libxml2 lets through.
    var emptyPrefix = false

    func parser(
      _ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String
    ) {
      if !prefix.isEmpty && namespaceURI.isEmpty {
        emptyPrefix = true
        parser.abortParsing()
      }
    }

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
      qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
      guard stack.count < DAVElement.maximumDepth else {
        tooDeep = true
        parser.abortParsing()
        return
      }
      if qName?.contains(":") == true, namespaceURI?.isEmpty ?? true {  // a prefix bound to ""
        emptyPrefix = true
        parser.abortParsing()
        return
      }
      stack.append(DAVElement(namespace: namespaceURI ?? "", name: elementName))
    }

    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
      qualifiedName qName: String?
    ) {
      guard let element = stack.popLast() else { return }
      if stack.isEmpty {
        root = element
      } else {
        stack[stack.count - 1].children.append(element)
      }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      guard !stack.isEmpty else { return }
      stack[stack.count - 1].text += string
    }
  }
}
