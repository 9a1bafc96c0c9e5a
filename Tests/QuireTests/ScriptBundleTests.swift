import Foundation
import Testing

@testable import QuireWeb

@Suite("The page's scripts served as one")
struct ScriptBundleTests {
  @Test("The deferred script lines become one tag, and the bundle holds them in the page's order")
  func bundlesInOrder() {
    let html = """
      <head>
        <link rel="stylesheet" href="style.css">
        <script src="a.js" defer></script>
        <script src="b.js" defer></script>
        <script src="c.js" defer></script>
      </head>
      """
    let sources = ["a.js": "\"use strict\";\nlet a = 1;", "b.js": "let b = a;", "c.js": "c(b);"]
    let bundle = ScriptBundle(html: html) { sources[$0] }
    #expect(
      bundle.html == """
        <head>
          <link rel="stylesheet" href="style.css">
          <script src="bundle.js" defer></script>
        </head>
        """)
    #expect(
      bundle.script
        == "// a.js\n\"use strict\";\nlet a = 1;\n;\n// b.js\nlet b = a;\n;\n// c.js\nc(b);")
  }

  @Test("A script that is missing, inline, remote or not deferred keeps its own tag")
  func leavesOtherScripts() {
    let html = """
      <script src="gone.js" defer></script>
      <script src="a.js"></script>
      <script src="../a.js" defer></script>
      <script>inline()</script>
      <script src="a.js" defer></script>
      """
    let bundle = ScriptBundle(html: html) { $0 == "a.js" ? "a();" : nil }
    #expect(
      bundle.html == """
        <script src="gone.js" defer></script>
        <script src="a.js"></script>
        <script src="../a.js" defer></script>
        <script>inline()</script>
        <script src="bundle.js" defer></script>
        """)
    #expect(bundle.script == "// a.js\na();")
  }

  @Test("The app's own page bundles every script it names")
  func bundlesTheApp() throws {
    let assets = WebAssets(bundling: "index.html") { _ in true }
    let page = String(decoding: try #require(assets.asset("index.html")), as: UTF8.self)
    let bundle = String(decoding: try #require(assets.asset("bundle.js")), as: UTF8.self)
    // early.js runs first, on its own (it asks for the folder's listing before the rest loads).
    #expect(page.components(separatedBy: "<script").count == 3)
    #expect(page.contains("<script src=\"early.js\"></script>\n  <link rel=\"stylesheet\""))
    for name in ["api.js", "browser.js", "rename.js", "app.js"] {
      let own = String(decoding: try #require(assets.asset(name)), as: UTF8.self)
      #expect(bundle.contains("// \(name)\n" + own))
    }
  }

  @Test("Each page is served only what it chose: the drive's files are not the app's")
  func chosenFiles() throws {
    let app = WebAssets(bundling: "index.html") { !$0.hasPrefix("drive") }
    let drive = WebAssets(bundling: nil) { ["drive.html", "drive.js", "style.css"].contains($0) }
    #expect(app.asset("drive.html") == nil && app.asset("style.css") != nil)
    #expect(drive.asset("index.html") == nil && drive.asset("bundle.js") == nil)
    // One stylesheet for both.
    let style = try #require(drive.asset("style.css"))
    #expect(style == app.asset("style.css"))
    let page = String(decoding: try #require(drive.asset("drive.html")), as: UTF8.self)
    #expect(page.contains("href=\"/web/style.css\""))
  }

  @Test("A page file is answered by its tag: If-None-Match with it, or *, is not modified")
  func entityTags() {
    let tag = "\"0123abcd\""
    #expect(WebAssets.matches(tag, tag))
    #expect(WebAssets.matches("W/\"0123abcd\"", tag))
    #expect(WebAssets.matches("\"other\", \"0123abcd\"", tag))
    #expect(WebAssets.matches("*", tag))
    #expect(!WebAssets.matches(nil, tag))
    #expect(!WebAssets.matches("\"0123abce\"", tag))
    #expect(!WebAssets.matches("0123abcd", tag))
    #expect(!WebAssets.matches("", tag))
  }
}
