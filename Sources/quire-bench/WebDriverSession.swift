import AsyncHTTPClient
import Foundation
import NIOCore

/// A headless Chromium driven through Debian's `chromedriver` over the W3C WebDriver protocol
/// (JSON over HTTP), for `quire-bench app-ui`. Hand-written because no Swift package this
/// project may use speaks WebDriver, and the benchmark needs only four commands: start a
/// session, open an address, run a script, end the session.
final class WebDriverSession {
  private let driver: SpawnedProcess
  private let base: String
  private var session = ""
  // AsyncHTTPClient, not URLSession: chromedriver writes "Content-Length:917" with no space,
  // which FoundationNetworking's header parsing rejects ("Failed writing header").
  private let client = HTTPClient.shared

  /// Starts chromedriver, then a headless Chromium with `arguments` beside the usual ones.
  init(arguments: [String]) async throws {
    let port = SyncthingPeer.freePort()
    // Spawned with SIGTERM unblocked: a `Process` started from this async code inherited the
    // concurrency thread's blocked SIGTERM, ignored `terminate()`, and every run left a
    // chromedriver behind.
    driver = try SpawnedProcess(
      "/usr/bin/chromedriver", ["--port=\(port)"], output: URL(fileURLWithPath: "/dev/null"))
    base = "http://127.0.0.1:\(port)"
    // chromedriver's "started" line sits in its stdout buffer when that is a pipe: ask it
    // instead. A refused connection means it does not listen yet; it answers /status once it
    // does (for at most 30 s).
    var attempts = 0
    while (try? await command("GET", "/status", nil)) == nil {
      attempts += 1
      guard attempts < 1_500, driver.isRunning else {
        driver.stop()
        throw RawFiles.Failure(description: "chromedriver did not start (install chromium-driver)")
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
    var options: [String: Any] = [
      "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage"] + arguments
    ]
    if let chromium { options["binary"] = chromium }
    do {
      let answer = try await command(
        "POST", "/session",
        ["capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options]]])
      guard let value = answer as? [String: Any], let id = value["sessionId"] as? String else {
        throw RawFiles.Failure(description: "chromedriver gave no session: \(answer)")
      }
      session = id
      _ = try await command("POST", "/session/\(id)/timeouts", ["script": 300_000])
    } catch {
      driver.stop()  // no session, no Chromium: nothing left running
      throw error
    }
  }

  /// Opens `url` and waits for its load event.
  func open(_ url: String) async throws {
    _ = try await command("POST", "/session/\(session)/url", ["url": url])
  }

  /// Runs `script` in the page; an asynchronous one calls its last argument with the result.
  func run(_ script: String, arguments: [Any] = [], async: Bool = false) async throws -> Any {
    try await command(
      "POST", "/session/\(session)/execute/\(async ? "async" : "sync")",
      ["script": script, "args": arguments])
  }

  /// Ends the session and chromedriver.
  func close() async {
    _ = try? await command("DELETE", "/session/\(session)", nil)
    driver.stop()
  }

  private func command(_ method: String, _ path: String, _ body: Any?) async throws -> Any {
    var request = HTTPClientRequest(url: base + path)
    request.method = .init(rawValue: method)
    if let body {
      request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
      request.headers.add(name: "Content-Type", value: "application/json")
    }
    let response = try await client.execute(request, timeout: .seconds(600))
    let data = Data(buffer: try await response.body.collect(upTo: 64 << 20))
    let json = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    guard let answer = json as? [String: Any] else { return json }
    if let value = answer["value"] as? [String: Any], let error = value["error"] as? String {
      throw RawFiles.Failure(
        description: "WebDriver \(path): \(error): \(value["message"] as? String ?? "")")
    }
    return answer["value"] ?? NSNull()
  }
}
