extension LineDiff {
  /// xdiff's divide-and-conquer Myers search over the lines left after preprocessing: the
  /// middle snake of each box splits it in two, with xdiff's heuristics once the edit cost
  /// passes 256, and the same tie-breaking, so the same lines are marked changed.
  package struct Search {
    let first: [Int]
    let second: [Int]
    /// Effective indexes marked changed.
    var changed1: [Int] = []
    var changed2: [Int] = []
    private var forward: [Int]
    private var backward: [Int]
    private let offset: Int
    private let maximumCost: Int
    private let snakeCount = 20
    private let heuristicMinimum = 256

    package init(first: [Int], second: [Int]) {
      self.first = first
      self.second = second
      let diagonals = first.count + second.count + 3
      forward = Array(repeating: 0, count: diagonals)
      backward = Array(repeating: 0, count: diagonals)
      offset = second.count + 1
      maximumCost = max(LineDiff.bogosqrt(diagonals), 256)
    }

    private struct Split {
      var i1 = 0
      var i2 = 0
      var minimalLow = false
      var minimalHigh = false
    }

    package mutating func compare(off1: Int, lim1: Int, off2: Int, lim2: Int, needMinimal: Bool) {
      var off1 = off1
      var off2 = off2
      var lim1 = lim1
      var lim2 = lim2
      while off1 < lim1, off2 < lim2, first[off1] == second[off2] {
        off1 += 1
        off2 += 1
      }
      while off1 < lim1, off2 < lim2, first[lim1 - 1] == second[lim2 - 1] {
        lim1 -= 1
        lim2 -= 1
      }
      if off1 == lim1 {
        changed2.append(contentsOf: off2..<lim2)
      } else if off2 == lim2 {
        changed1.append(contentsOf: off1..<lim1)
      } else {
        let split = self.split(
          off1: off1, lim1: lim1, off2: off2, lim2: lim2, needMinimal: needMinimal)
        compare(
          off1: off1, lim1: split.i1, off2: off2, lim2: split.i2, needMinimal: split.minimalLow)
        compare(
          off1: split.i1, lim1: lim1, off2: split.i2, lim2: lim2, needMinimal: split.minimalHigh)
      }
    }

    private func f(_ d: Int) -> Int { forward[d + offset] }
    private func b(_ d: Int) -> Int { backward[d + offset] }

    // swiftlint:disable:next function_body_length cyclomatic_complexity
    private mutating func split(off1: Int, lim1: Int, off2: Int, lim2: Int, needMinimal: Bool)
      -> Split
    {
      let dmin = off1 - lim2
      let dmax = lim1 - off2
      let fmid = off1 - off2
      let bmid = lim1 - lim2
      let odd = (fmid - bmid) & 1 != 0
      var fmin = fmid
      var fmax = fmid
      var bmin = bmid
      var bmax = bmid
      forward[fmid + offset] = off1
      backward[bmid + offset] = lim1
      var cost = 1
      while true {
        var gotSnake = false
        if fmin > dmin {
          fmin -= 1
          forward[fmin - 1 + offset] = -1
        } else {
          fmin += 1
        }
        if fmax < dmax {
          fmax += 1
          forward[fmax + 1 + offset] = -1
        } else {
          fmax -= 1
        }
        var d = fmax
        while d >= fmin {
          var i1 = f(d - 1) >= f(d + 1) ? f(d - 1) + 1 : f(d + 1)
          let previous = i1
          var i2 = i1 - d
          while i1 < lim1, i2 < lim2, first[i1] == second[i2] {
            i1 += 1
            i2 += 1
          }
          if i1 - previous > snakeCount { gotSnake = true }
          forward[d + offset] = i1
          if odd, bmin <= d, d <= bmax, b(d) <= i1 {
            return Split(i1: i1, i2: i2, minimalLow: true, minimalHigh: true)
          }
          d -= 2
        }
        if bmin > dmin {
          bmin -= 1
          backward[bmin - 1 + offset] = Int.max
        } else {
          bmin += 1
        }
        if bmax < dmax {
          bmax += 1
          backward[bmax + 1 + offset] = Int.max
        } else {
          bmax -= 1
        }
        d = bmax
        while d >= bmin {
          var i1 = b(d - 1) < b(d + 1) ? b(d - 1) : b(d + 1) - 1
          let previous = i1
          var i2 = i1 - d
          while i1 > off1, i2 > off2, first[i1 - 1] == second[i2 - 1] {
            i1 -= 1
            i2 -= 1
          }
          if previous - i1 > snakeCount { gotSnake = true }
          backward[d + offset] = i1
          if !odd, fmin <= d, d <= fmax, i1 <= f(d) {
            return Split(i1: i1, i2: i2, minimalLow: true, minimalHigh: true)
          }
          d -= 2
        }
        if !needMinimal {
          if gotSnake, cost > heuristicMinimum,
            let found = interestingSplit(
              off1: off1, lim1: lim1, off2: off2, lim2: lim2, cost: cost,
              forwardRange: (fmin, fmax, fmid), backwardRange: (bmin, bmax, bmid))
          {
            return found
          }
          if cost >= maximumCost {
            return furthestSplit(
              off1: off1, lim1: lim1, off2: off2, lim2: lim2, forwardRange: (fmin, fmax),
              backwardRange: (bmin, bmax))
          }
        }
        cost += 1
      }
    }

    /// xdiff's heuristic: a diagonal far along, near the middle, ending a long enough snake.
    private func interestingSplit(
      off1: Int, lim1: Int, off2: Int, lim2: Int, cost: Int,
      forwardRange: (Int, Int, Int), backwardRange: (Int, Int, Int)
    ) -> Split? {
      var best = 0
      var found = Split()
      var d = forwardRange.1
      while d >= forwardRange.0 {
        let dd = abs(d - forwardRange.2)
        let i1 = f(d)
        let i2 = i1 - d
        let v = (i1 - off1) + (i2 - off2) - dd
        if v > 4 * cost, v > best, off1 + snakeCount <= i1, i1 < lim1, off2 + snakeCount <= i2,
          i2 < lim2
        {
          var k = 1
          while first[i1 - k] == second[i2 - k] {
            if k == snakeCount {
              best = v
              found = Split(i1: i1, i2: i2, minimalLow: true, minimalHigh: false)
              break
            }
            k += 1
          }
        }
        d -= 2
      }
      if best > 0 { return found }
      d = backwardRange.1
      while d >= backwardRange.0 {
        let dd = abs(d - backwardRange.2)
        let i1 = b(d)
        let i2 = i1 - d
        let v = (lim1 - i1) + (lim2 - i2) - dd
        if v > 4 * cost, v > best, off1 < i1, i1 <= lim1 - snakeCount, off2 < i2,
          i2 <= lim2 - snakeCount
        {
          var k = 0
          while first[i1 + k] == second[i2 + k] {
            if k == snakeCount - 1 {
              best = v
              found = Split(i1: i1, i2: i2, minimalLow: false, minimalHigh: true)
              break
            }
            k += 1
          }
        }
        d -= 2
      }
      return best > 0 ? found : nil
    }

    /// xdiff's cut-off: the furthest-reaching path, forward or backward.
    private func furthestSplit(
      off1: Int, lim1: Int, off2: Int, lim2: Int, forwardRange: (Int, Int),
      backwardRange: (Int, Int)
    ) -> Split {
      var fbest = -1
      var fbest1 = -1
      var d = forwardRange.1
      while d >= forwardRange.0 {
        var i1 = min(f(d), lim1)
        var i2 = i1 - d
        if lim2 < i2 {
          i1 = lim2 + d
          i2 = lim2
        }
        if fbest < i1 + i2 {
          fbest = i1 + i2
          fbest1 = i1
        }
        d -= 2
      }
      var bbest = Int.max
      var bbest1 = Int.max
      d = backwardRange.1
      while d >= backwardRange.0 {
        var i1 = max(off1, b(d))
        var i2 = i1 - d
        if i2 < off2 {
          i1 = off2 + d
          i2 = off2
        }
        if i1 + i2 < bbest {
          bbest = i1 + i2
          bbest1 = i1
        }
        d -= 2
      }
      if (lim1 + lim2) - bbest < fbest - (off1 + off2) {
        return Split(i1: fbest1, i2: fbest - fbest1, minimalLow: true, minimalHigh: false)
      }
      return Split(i1: bbest1, i2: bbest - bbest1, minimalLow: false, minimalHigh: true)
    }
  }
}
