import ArgumentParser
import Foundation
import Quire
import QuireApp

/// The app's browser in a real headless Chromium, on a folder of N documents: how soon the first
/// items are painted after the page is opened (the frame the page marks "quire:first-items"),
/// and the main thread's work per frame while the selection moves with the keyboard and the view
/// scrolls through the documents: from the frame's start to the end of its style, layout and
/// paint, plus every long task between frames. The peer: Python's http.server listing the same
/// folder, its first contentful paint in the same Chromium.
struct AppUIBenchmark: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "app-ui",
    abstract: "Time the app's browser in headless Chromium: first paint and frames.")

  @Option(help: "Documents in the folder.") var documents = 10_000
  @Option(help: "Page loads to time.") var loads = 7
  @Option(help: "Frames to time while selecting and scrolling.") var frames = 600
  @Option(help: "Folder to work in (default: the temporary folder).") var directory: String?

  func run() async throws {
    let root = try Measurement.scratch(directory, "app-ui")
    defer { try? RawFiles.removeTree(root.path) }
    let library = root.appendingPathComponent("Library")
    try AppListBenchmark.makeLibrary(library, documents: documents)

    let app = try await BenchApp.start(library)
    defer { app.serving.cancel() }
    let browser = try await WebDriverSession(arguments: ["--window-size=1280,860", "--disable-gpu"])
    do {
      let results = try await measure(browser, address: app.address, library: library)
      await browser.close()
      report(results)
    } catch {
      await browser.close()
      throw error
    }
  }

  private struct Results {
    var firstPaint: [Double] = []
    var selecting: [Double] = []
    var scrolling: [Double] = []
    var shown = 0
    var drawn = 0
    var peerPaint: [Double] = []
  }

  private func measure(_ browser: WebDriverSession, address: URL, library: URL) async throws
    -> Results
  {
    var results = Results()
    // The page marks "quire:first-items" in the frame that first shows the folder's items.
    let firstItems = """
      const done = arguments[arguments.length - 1];
      const look = () => {
        const mark = performance.getEntriesByName("quire:first-items")[0];
        if (mark) done(mark.startTime); else requestAnimationFrame(look);
      };
      look();
      """
    for load in 0...loads {
      try await browser.open(address.absoluteString)
      let time = try await browser.run(firstItems, async: true)
      if load > 0, let time = time as? Double { results.firstPaint.append(time) }  // 0: warm-up
    }
    // Each step runs in an animation frame; a task queued from it runs once the frame's style,
    // layout and paint are done on the main thread, so the time between is the frame's work.
    // Work outside the frames (a page of the listing arriving and drawn) shows as long tasks,
    // counted as frames of their own.
    let framesScript = """
      const [frames, done] = [arguments[0], arguments[arguments.length - 1]];
      const list = document.getElementById("items");
      list.querySelector(".item").click();
      const selecting = [], scrolling = [];
      let n = 0;
      new PerformanceObserver((entries) => {
        const into = n < frames / 3 ? selecting : scrolling;
        for (const entry of entries.getEntries()) into.push(entry.duration);
      }).observe({ type: "longtask" });
      const step = () => {
        const start = performance.now();
        const into = n < frames / 3 ? selecting : scrolling;
        if (n < frames / 3) {
          const key = n % 2 === 0 ? "ArrowRight" : "ArrowDown";
          document.activeElement.dispatchEvent(
            new KeyboardEvent("keydown", { key, shiftKey: n % 4 === 1, bubbles: true }));
        } else {
          window.scrollBy(0, 900);
        }
        setTimeout(() => {
          into.push(performance.now() - start);
          n += 1;
          if (n >= frames) done({
            selecting, scrolling,
            shown: list.querySelectorAll(".item").length,
            drawn: list.querySelectorAll(":scope > .chunk:not(.parked) > .item").length,
          });
          else requestAnimationFrame(step);
        }, 0);
      };
      requestAnimationFrame(step);
      """
    let answer = try await browser.run(framesScript, arguments: [frames], async: true)
    guard let frameTimes = answer as? [String: Any],
      let selecting = frameTimes["selecting"] as? [Double],
      let scrolling = frameTimes["scrolling"] as? [Double]
    else { throw RawFiles.Failure(description: "the frames script answered \(answer)") }
    results.selecting = selecting
    results.scrolling = scrolling
    results.shown = frameTimes["shown"] as? Int ?? 0
    results.drawn = frameTimes["drawn"] as? Int ?? 0
    results.peerPaint = try await peerPaint(browser, library: library)
    return results
  }

  /// http.server's listing of the folder, its first contentful paint, in the same Chromium.
  private func peerPaint(_ browser: WebDriverSession, library: URL) async throws -> [Double] {
    try await BenchApp.withPythonServer(library) { port in
      var times: [Double] = []
      for load in 0...loads {
        try await browser.open("http://127.0.0.1:\(port)/")
        if load > 0, let time = try await browser.run(Self.paintScript, async: true) as? Double {
          times.append(time)
        }
      }
      return times
    }
  }

  /// Waits for the page's first contentful paint and answers its time.
  private static let paintScript = """
    const done = arguments[arguments.length - 1];
    const look = () => {
      const entry = performance.getEntriesByName("first-contentful-paint")[0];
      if (entry) done(entry.startTime); else requestAnimationFrame(look);
    };
    look();
    """

  private func report(_ results: Results) {
    let frames = results.selecting + results.scrolling
    Measurement.table(
      ["\(documents) documents in one folder", "p50 ms", "p99 ms"],
      [
        row("app: first items painted after opening", results.firstPaint),
        row("app: frame while selecting with the keyboard", results.selecting),
        row(
          "app: frame while scrolling (\(results.shown) items listed, \(results.drawn) drawn at the end)",
          results.scrolling),
        row("app: every frame", frames),
        row("peer: http.server listing, first contentful paint", results.peerPaint),
      ])
    print(
      "RESULT app-ui documents=\(documents) "
        + "first_paint_ms=\(Measurement.format(Measurement.median(results.firstPaint))) "
        + "frame_p99_ms=\(Measurement.format(Measurement.percentile(frames, 0.99))) "
        + "frame_p50_ms=\(Measurement.format(Measurement.median(frames))) "
        + "dom_items=\(results.shown) drawn_items=\(results.drawn) "
        + "peer_first_paint_ms=\(Measurement.format(Measurement.median(results.peerPaint)))")
  }

  private func row(_ label: String, _ values: [Double]) -> [String] {
    [
      label, Measurement.format(Measurement.median(values)),
      Measurement.format(Measurement.percentile(values, 0.99)),
    ]
  }
}
