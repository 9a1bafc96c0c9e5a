import Testing

@testable import QuireSync

/// A wait's look at what is shared: it goes on only after a look that began after it asked,
/// with that look's outcome, and at once once looking has ended.
@Suite("Waiting for a look at the shares")
struct ShareLooksTests {
  /// ``ShareLooks`` behind an actor, as the agent holds it.
  actor Looks {
    var looks = ShareLooks()
    let asks: AsyncStream<Void>

    init() {
      let (asks, asker) = AsyncStream<Void>.makeStream()
      self.asks = asks
      looks.asker = asker
    }

    func wait() async {
      await withCheckedContinuation { continuation in
        if !looks.ask(continuation) { continuation.resume() }
      }
    }

    /// A look begins: the asks it covers.
    func begin() -> Int { looks.asked }
    func finish(covering: Int) { looks.finished(covering: covering) }
    var isWaiting: Bool { looks.isWaiting }
    func end() { looks.end() }
  }

  @Test(
    "a look covers the waits asked before it began, and only those; one that failed covers none")
  func coversEarlierAsks() async {
    let looks = Looks()
    var asks = looks.asks.makeAsyncIterator()
    let first = Task { await looks.wait() }
    _ = await asks.next()  // the ask is recorded
    let covering = await looks.begin()
    let second = Task { await looks.wait() }  // asked while the look runs
    _ = await asks.next()
    await looks.finish(covering: covering)
    await first.value
    #expect(await looks.isWaiting, "the wait asked during the look waits for the next")
    // A look that could not hear the server does not finish: the wait stays.
    _ = await looks.begin()
    #expect(await looks.isWaiting)
    await looks.finish(covering: await looks.begin())
    await second.value
    #expect(await !looks.isWaiting)
  }

  @Test("once looking has ended, a wait goes on at once, and so does one already waiting")
  func endedLooksLetWaitsGo() async {
    let looks = Looks()
    var asks = looks.asks.makeAsyncIterator()
    let waiting = Task { await looks.wait() }
    _ = await asks.next()
    await looks.end()
    await waiting.value
    await looks.wait()  // at once
    #expect(await !looks.isWaiting)
  }
}
