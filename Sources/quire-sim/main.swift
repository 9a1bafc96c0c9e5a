// quire-sim: runs the sync simulation over a range of seeds and prints, as its last line,
// `RESULT sync-sim seeds=… diverged=… lost=… violations=… seeds_per_s=…`.
//
//   quire-sim --seeds N [--start S] [--devices D] [--trace]
//
// A failing seed prints its shrunk history and the command that replays it; `--trace` with
// `--seeds 1` prints every step and operation of that seed.
import Dispatch
import Foundation
import QuireSyncSimulation
import Synchronization

struct Options {
  var seeds: UInt64 = 1000
  var start: UInt64 = 1
  var devices = 3
  var trace = false

  init(_ arguments: [String]) throws {
    var rest = arguments[...]
    while let flag = rest.popFirst() {
      switch flag {
      case "--trace": trace = true
      case "--seeds", "--start", "--devices":
        guard let text = rest.popFirst(), let value = UInt64(text) else {
          throw UsageError(message: "\(flag) needs a whole number")
        }
        switch flag {
        case "--seeds": seeds = value
        case "--start": start = value
        default: devices = Int(min(value, 16))
        }
      default: throw UsageError(message: "unknown option \(flag)")
      }
    }
  }
}

struct UsageError: Error { var message: String }

struct Tally {
  var diverged = 0
  var lost = 0
  var violations = 0
  var plans = 0
  var failures: [(UInt64, SimulationOutcome, [SimulationStep])] = []
}

let options: Options
do {
  options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch let error as UsageError {
  FileHandle.standardError.write(
    Data(
      "quire-sim: \(error.message) (usage: quire-sim --seeds N [--start S] [--devices D] [--trace])\n"
        .utf8))
  exit(2)
}

let simulation = SyncSimulation(devices: options.devices)
if options.trace {
  for seed in options.start..<(options.start + options.seeds) {
    let outcome = simulation.run(simulation.history(seed: seed), seed: seed) { print($0) }
    print(
      "seed \(seed): \(outcome.passed ? "passed" : "FAILED") \(outcome.violations) lost \(outcome.lost)"
    )
  }
  exit(0)
}

let tally = Mutex(Tally())
let began = ContinuousClock.now
let workers = max(ProcessInfo.processInfo.activeProcessorCount, 1)
DispatchQueue.concurrentPerform(iterations: workers) { worker in
  var mine = Tally()
  var seed = options.start + UInt64(worker)
  while seed < options.start + options.seeds {
    let (outcome, shrunk) = simulation.run(seed: seed)
    mine.plans += outcome.plans
    if outcome.diverged { mine.diverged += 1 }
    if !outcome.lost.isEmpty { mine.lost += 1 }
    if !outcome.violations.isEmpty { mine.violations += 1 }
    if let shrunk, mine.failures.count < 3 { mine.failures.append((seed, outcome, shrunk)) }
    seed += UInt64(workers)
  }
  tally.withLock {
    $0.diverged += mine.diverged
    $0.lost += mine.lost
    $0.violations += mine.violations
    $0.plans += mine.plans
    $0.failures += mine.failures
  }
}
let elapsed = ContinuousClock.now - began
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let result = tally.withLock { $0 }
for (seed, outcome, shrunk) in result.failures.sorted(by: { $0.0 < $1.0 }).prefix(3) {
  print("seed \(seed) failed: \(outcome.violations.joined(separator: "; ")) lost \(outcome.lost)")
  print("  shrunk to \(shrunk.count) steps:")
  for step in shrunk { print("    \(step)") }
  print("  replay: scripts/sim --seeds 1 --start \(seed) --devices \(options.devices) --trace")
}
print("| seeds | devices | plans | diverged | lost | violations | seconds |")
print("| --- | --- | --- | --- | --- | --- | --- |")
print(
  "| \(options.seeds) | \(options.devices) | \(result.plans) | \(result.diverged) | \(result.lost) "
    + "| \(result.violations) | \(String(format: "%.1f", seconds)) |")
print(
  "RESULT sync-sim seeds=\(options.seeds) diverged=\(result.diverged) lost=\(result.lost) "
    + "violations=\(result.violations) seeds_per_s=\(Int(Double(options.seeds) / max(seconds, 0.001)))"
)
exit(result.diverged + result.lost + result.violations == 0 ? 0 : 1)
