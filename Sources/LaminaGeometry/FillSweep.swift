// The general sweep of `FillTessellator` (its design is described there and in README.md):
// the edges, the event queue, and `FillSweep`, which turns any contour set into
// non-overlapping triangles and boundary runs under either fill rule.

struct SweepEdge {
    var tx: Double, ty: Double, bx: Double, by: Double
    var slope: Double
    var minX: Double, maxX: Double
    var winding: Int32
    var windingRight: Int32 = 0
    var state: UInt8 = 0          // 0 pending, 1 active, 2 done
    var side: Int8 = 0            // boundary run: 0 none, -1 inside on the right, +1 inside on the left
    var spanRight: Int32 = -1     // right edge of the open inside span to the right, or -1
    var spanTL: UInt32 = 0
    var spanTR: UInt32 = 0
    var kept: Int32 = -1
    var cacheV: UInt32 = 0
    var cacheY: Double = .nan
    var runY: Double = 0

    init(top: Point, bottom: Point, winding: Int32) {
        tx = top.x; ty = top.y; bx = bottom.x; by = bottom.y
        slope = (bx - tx) / (by - ty)
        minX = Swift.min(tx, bx); maxX = Swift.max(tx, bx)
        self.winding = winding
    }

    mutating func setBottom(_ p: Point) {
        bx = p.x; by = p.y
        slope = (bx - tx) / (by - ty)
        minX = Swift.min(tx, bx); maxX = Swift.max(tx, bx)
    }

    @inline(__always) func x(at y: Double) -> Double {
        if y >= by { return bx }
        if y <= ty { return tx }
        let x = tx + (y - ty) * slope
        return Swift.min(Swift.max(x, minX), maxX)
    }
}

struct EventKey: Comparable {
    var y: Double
    var x: Double
    var id: Int32
    @inline(__always) static func < (a: EventKey, b: EventKey) -> Bool {
        a.y < b.y || (a.y == b.y && (a.x < b.x || (a.x == b.x && a.id < b.id)))
    }
}

/// A binary min-heap.
struct MinHeap {
    var items: [EventKey] = []
    var peek: EventKey? { items.first }
    mutating func push(_ k: EventKey) {
        items.append(k)
        var i = items.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            if !(items[i] < items[p]) { break }
            items.swapAt(i, p); i = p
        }
    }
    @discardableResult mutating func pop() -> EventKey {
        let top = items[0]
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            let n = items.count
            while true {
                let l = 2 * i + 1
                if l >= n { break }
                var m = l
                if l + 1 < n && items[l + 1] < items[l] { m = l + 1 }
                if !(items[m] < items[i]) { break }
                items.swapAt(i, m); i = m
            }
        }
        return top
    }
}

struct SortItem { var x: Double; var slope: Double; var id: Int32 }

struct FillSweep {
    let rule: FillRule
    let collectBoundary: Bool
    /// Whether the spans are written out as triangles (`out`): a caller that wants only the
    /// boundary (a coverage mesh) skips their vertices and indices; the spans are tracked
    /// the same either way (the boundary's horizontal pieces come from them).
    let collectTriangles: Bool
    var edges: [SweepEdge] = []
    var sortedStarts: [EventKey] = []   // the input edges by top; split-off edges go to `pending`
    var nextStart = 0
    var pending = MinHeap()
    var ends = MinHeap()
    var active: [Int32] = []
    var out = TriangleList()
    var runs: [FillTessellator.BoundaryRun] = []
    var eps = 0.0
    var splitBudget = 0
    var rowStamp: Int32 = 0
    var starting: [Int32] = []
    var ending: [Int32] = []
    var items: [SortItem] = []
    var rowItems: [RowItem] = []
    var clusters: [(Int, Int, Int, Int)] = []
    var seq: [Int32] = []
    var seqRight: [Int32] = []
    var seqW: [Int32] = []
    var lastVX = Double.nan, lastVY = Double.nan
    var lastVI: UInt32 = 0
    /// `horizontalBoundary`'s working lists, kept from row to row (no allocation per row).
    var above: [(Double, Double)] = []
    var below: [(Double, Double)] = []
    var xs: [Double] = []

    init(rule: FillRule, collectBoundary: Bool, collectTriangles: Bool = true) {
        self.rule = rule; self.collectBoundary = collectBoundary; self.collectTriangles = collectTriangles
    }

    mutating func build(_ polygons: [[Point]]) {
        var maxAbs = 0.0
        var count = 0
        for poly in polygons { count += poly.count }
        edges.reserveCapacity(count + count / 4)
        for poly in polygons {
            let n = poly.count
            if n < 2 { continue }
            for i in 0 ..< n {
                let a = poly[i], b = poly[i + 1 == n ? 0 : i + 1]
                maxAbs = max(maxAbs, abs(a.x), abs(a.y))
                if a.y == b.y { continue }
                if a.y < b.y { edges.append(SweepEdge(top: a, bottom: b, winding: 1)) }
                else { edges.append(SweepEdge(top: b, bottom: a, winding: -1)) }
            }
        }
        eps = maxAbs * 1e-12
        splitBudget = 8 * edges.count + 10_000
        var keys = [EventKey]()
        keys.reserveCapacity(edges.count)
        for (i, e) in edges.enumerated() { keys.append(EventKey(y: e.ty, x: e.tx, id: Int32(i))) }
        keys.sort(by: <)
        sortedStarts = keys
        if collectTriangles {
            out.points.reserveCapacity(edges.count * 2)
            out.indices.reserveCapacity(edges.count * 6)
        }
    }

    @inline(__always) func isValidEnd(_ k: EventKey) -> Bool {
        let e = edges[Int(k.id)]
        return e.state == 1 && e.by == k.y && e.bx == k.x
    }

    mutating func run() {
        while true {
            while let k = ends.peek, !isValidEnd(k) { ends.pop() }
            var c = Double.infinity
            if let p = peekStart() { c = p.y }
            if let k = ends.peek, k.y < c { c = k.y }
            if c == .infinity { break }
            starting.removeAll(keepingCapacity: true)
            ending.removeAll(keepingCapacity: true)
            while let p = peekStart(), p.y == c { popStart(); starting.append(p.id) }
            while let k = ends.peek, k.y == c {
                ends.pop()
                if isValidEnd(k) { ending.append(k.id) }
            }
            processRow(c)
        }
    }

    @inline(__always) func peekStart() -> EventKey? {
        if nextStart < sortedStarts.count {
            let a = sortedStarts[nextStart]
            if let b = pending.peek, b < a { return b }
            return a
        }
        return pending.peek
    }

    @inline(__always) mutating func popStart() {
        if nextStart < sortedStarts.count {
            if let b = pending.peek, b < sortedStarts[nextStart] { pending.pop() } else { nextStart += 1 }
        } else {
            pending.pop()
        }
    }

    /// First index whose x at y is ≥ x.
    func lowerBound(_ x: Double, _ y: Double) -> Int {
        var lo = 0, hi = active.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if edges[Int(active[mid])].x(at: y) < x { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// One event edge of a row: the run of the active list it touches.
    struct RowItem { var lo: Int; var hi: Int; var id: Int32; var starts: Bool }

    mutating func processRow(_ c: Double) {
        rowStamp &+= 1
        rowItems.removeAll(keepingCapacity: true)
        for id in ending {
            let x = edges[Int(id)].bx
            let a = lowerBound(x - eps, c)
            var b = a
            var pos = -1
            while b < active.count && edges[Int(active[b])].x(at: c) <= x + eps {
                if active[b] == id { pos = b }
                b += 1
            }
            if pos < 0 { pos = active.firstIndex(of: id)! }   // misordered by rounding: still found
            rowItems.append(RowItem(lo: min(a, pos), hi: max(b, pos + 1), id: id, starts: false))
        }
        for id in starting {
            let x = edges[Int(id)].tx
            let a = lowerBound(x - eps, c)
            var b = a
            while b < active.count && edges[Int(active[b])].x(at: c) <= x + eps { b += 1 }
            rowItems.append(RowItem(lo: a, hi: b, id: id, starts: true))
        }
        // Independent clusters: overlapping or touching runs merge, and a cluster whose
        // edges do not conserve the winding (a horizontal edge leaves it) takes in the next.
        // Clusters are processed right to left so that indices on the left stay valid.
        rowItems.sort { $0.lo < $1.lo || ($0.lo == $1.lo && $0.hi < $1.hi) }
        clusters.removeAll(keepingCapacity: true)
        var k = 0
        while k < rowItems.count {
            var lo = rowItems[k].lo, hi = rowItems[k].hi
            var net: Int32 = 0
            let first = k
            repeat {
                let it = rowItems[k]
                lo = min(lo, it.lo); hi = max(hi, it.hi)
                net &+= it.starts ? edges[Int(it.id)].winding : -edges[Int(it.id)].winding
                k += 1
            } while k < rowItems.count && (rowItems[k].lo <= hi || net != 0)
            clusters.append((lo, hi, first, k))
        }
        for (lo, hi, from, to) in clusters.reversed() {
            starting.removeAll(keepingCapacity: true)
            ending.removeAll(keepingCapacity: true)
            for i in from ..< to {
                if rowItems[i].starts { starting.append(rowItems[i].id) } else { ending.append(rowItems[i].id) }
            }
            processCluster(c, lo: lo, hi: hi)
        }
    }

    mutating func processCluster(_ c: Double, lo: Int, hi: Int) {
        for id in ending { edges[Int(id)].state = 2 }
        if starting.count > 1 {
            starting.sort { (edges[Int($0)].tx, edges[Int($0)].slope) < (edges[Int($1)].tx, edges[Int($1)].slope) }
        }

        // The new run: surviving edges of [lo, hi) and the starting edges, sorted by x at c, then slope.
        items.removeAll(keepingCapacity: true)
        for k in lo ..< hi {
            let id = active[k]
            let e = edges[Int(id)]
            if e.state == 1 { items.append(SortItem(x: e.x(at: c), slope: e.slope, id: id)) }
        }
        for id in starting {
            let e = edges[Int(id)]
            items.append(SortItem(x: e.tx, slope: e.slope, id: id))
        }
        if items.count > 1 {
            for i in 1 ..< items.count {
                let v = items[i]
                var j = i - 1
                while j >= 0 && (items[j].x > v.x || (items[j].x == v.x && items[j].slope > v.slope)) {
                    items[j + 1] = items[j]; j -= 1
                }
                items[j + 1] = v
            }
        }

        // Windings, spans kept, boundary sides.
        let hasLeft = lo > 0
        let leftId: Int32 = hasLeft ? active[lo - 1] : -1
        let rightId: Int32 = hi < active.count ? active[hi] : -1
        seq.removeAll(keepingCapacity: true)
        seqRight.removeAll(keepingCapacity: true)
        seqW.removeAll(keepingCapacity: true)
        if hasLeft { seq.append(leftId) }
        for it in items { seq.append(it.id) }
        var w: Int32 = hasLeft ? edges[Int(leftId)].windingRight : 0
        for k in 0 ..< seq.count {
            let id = seq[k]
            let nr: Int32 = k + 1 < seq.count ? seq[k + 1] : rightId
            let leftW = w
            if !(hasLeft && k == 0) { w &+= edges[Int(id)].winding }
            let nw = w
            seqRight.append(nr); seqW.append(nw)
            if nr >= 0 && rule.isInside(nw) && edges[Int(id)].spanRight == nr { edges[Int(id)].kept = rowStamp }
            if collectBoundary && !(hasLeft && k == 0) {
                let inL = rule.isInside(leftW), inR = rule.isInside(nw)
                let side: Int8 = inL == inR ? 0 : (inR ? -1 : 1)
                let old = edges[Int(id)].side
                if old != side {
                    if old != 0 { emitRun(id, to: c) }
                    edges[Int(id)].side = side
                    edges[Int(id)].runY = c
                }
            }
        }
        if collectBoundary { horizontalBoundary(lo: lo, hi: hi, hasLeft: hasLeft, c) }
        // Close spans that do not continue (their edges changed), and boundary runs of ending edges.
        for k in (hasLeft ? lo - 1 : lo) ..< hi {
            let id = active[k]
            if edges[Int(id)].spanRight >= 0 && edges[Int(id)].kept != rowStamp {
                flush(id, c)
                edges[Int(id)].spanRight = -1
            }
            if collectBoundary && edges[Int(id)].state == 2 && edges[Int(id)].side != 0 {
                emitRun(id, to: c); edges[Int(id)].side = 0
            }
        }
        // Open new spans.
        for k in 0 ..< seq.count {
            let id = seq[k]
            if !(hasLeft && k == 0) { edges[Int(id)].windingRight = seqW[k] }
            let nr = seqRight[k]
            if nr >= 0 && rule.isInside(seqW[k]) && edges[Int(id)].kept != rowStamp {
                edges[Int(id)].spanRight = nr
                edges[Int(id)].spanTL = vertex(id, c)
                edges[Int(id)].spanTR = vertex(nr, c)
            }
        }
        for id in starting {
            edges[Int(id)].state = 1
            let e = edges[Int(id)]
            ends.push(EventKey(y: e.by, x: e.bx, id: id))
        }
        if items.count == hi - lo {
            // As many edges as before (most rows): written over them, the list neither grows nor shrinks.
            for (k, it) in items.enumerated() { active[lo + k] = it.id }
        } else {
            active.replaceSubrange(lo ..< hi, with: items.lazy.map(\.id))
        }

        // Crossings between the edges now adjacent.
        let first = max(lo - 1, 0), last = min(lo + items.count, active.count - 1)
        var k = first
        while k < last { checkCrossing(k, c); k += 1 }
    }

    /// Boundary along row c: where the inside just above (old spans) differs from the inside
    /// just below (new spans). These are the horizontal edges the sweep otherwise drops.
    mutating func horizontalBoundary(lo: Int, hi: Int, hasLeft: Bool, _ c: Double) {
        above.removeAll(keepingCapacity: true)
        below.removeAll(keepingCapacity: true)
        for k in (hasLeft ? lo - 1 : lo) ..< hi {
            let id = active[k]
            let r = edges[Int(id)].spanRight
            if r >= 0 && edges[Int(id)].kept != rowStamp {
                above.append((edges[Int(id)].x(at: c), edges[Int(r)].x(at: c)))
            }
        }
        for k in 0 ..< seq.count {
            let id = seq[k], nr = seqRight[k]
            if nr >= 0 && rule.isInside(seqW[k]) && edges[Int(id)].kept != rowStamp {
                below.append((edges[Int(id)].x(at: c), edges[Int(nr)].x(at: c)))
            }
        }
        if above.isEmpty && below.isEmpty { return }
        xs.removeAll(keepingCapacity: true)
        for (a, b) in above { xs.append(a); xs.append(b) }
        for (a, b) in below { xs.append(a); xs.append(b) }
        xs.sort()
        var ia = 0, ib = 0
        for i in 0 ..< max(0, xs.count - 1) {
            let x0 = xs[i], x1 = xs[i + 1]
            if x1 <= x0 { continue }
            let m = (x0 + x1) / 2
            while ia < above.count && above[ia].1 <= m { ia += 1 }
            while ib < below.count && below[ib].1 <= m { ib += 1 }
            let inA = ia < above.count && above[ia].0 < m && above[ia].1 > m
            let inB = ib < below.count && below[ib].0 < m && below[ib].1 > m
            if inA != inB {
                runs.append(.init(a: Point(x0, c), b: Point(x1, c), outward: Point(0, inB ? -1 : 1)))
            }
        }
    }

    mutating func emitRun(_ id: Int32, to y: Double) {
        let e = edges[Int(id)]
        let y0 = e.runY
        guard y > y0 else { return }
        let a = Point(e.x(at: y0), y0), b = Point(e.x(at: y), y)
        let d = b - a
        let len = d.length
        guard len > 0 else { return }
        // Downward edge: (−dy, dx) points to smaller x (left).
        let left = Point(-d.y / len, d.x / len)
        runs.append(.init(a: a, b: b, outward: e.side < 0 ? left : -left))
    }

    mutating func vertex(_ id: Int32, _ y: Double) -> UInt32 {
        guard collectTriangles else { return 0 }
        if edges[Int(id)].cacheY == y { return edges[Int(id)].cacheV }
        let x = edges[Int(id)].x(at: y)
        let v: UInt32
        if y == lastVY && x == lastVX { v = lastVI } else {
            v = UInt32(out.points.count)
            out.points.append(Point(x, y))
            lastVX = x; lastVY = y; lastVI = v
        }
        edges[Int(id)].cacheY = y
        edges[Int(id)].cacheV = v
        return v
    }

    mutating func flush(_ id: Int32, _ c: Double) {
        guard collectTriangles else { return }
        let r = edges[Int(id)].spanRight
        let tl = edges[Int(id)].spanTL, tr = edges[Int(id)].spanTR
        let bl = vertex(id, c), br = vertex(r, c)
        let ptl = out.points[Int(tl)], ptr = out.points[Int(tr)]
        let pbl = out.points[Int(bl)], pbr = out.points[Int(br)]
        guard pbl.y > ptl.y else { return }
        let wt = ptr.x - ptl.x, wb = pbr.x - pbl.x
        if wt <= 0 && wb <= 0 { return }
        if wt <= 0 {
            out.indices.append(tl); out.indices.append(br); out.indices.append(bl)
        } else if wb <= 0 {
            out.indices.append(tl); out.indices.append(tr); out.indices.append(bl)
        } else {
            out.indices.append(tl); out.indices.append(tr); out.indices.append(br)
            out.indices.append(tl); out.indices.append(br); out.indices.append(bl)
        }
    }

    /// Splits active[k] and active[k+1] where they cross below row c.
    mutating func checkCrossing(_ k: Int, _ c: Double) {
        guard splitBudget > 0 else { return }
        let li = active[k], ri = active[k + 1]
        let a = edges[Int(li)], b = edges[Int(ri)]
        let yb = min(a.by, b.by)
        if yb <= c { return }
        let dBot = b.x(at: yb) - a.x(at: yb)
        if dBot >= 0 { return }
        let dTop = b.x(at: c) - a.x(at: c)
        var y: Double
        if dTop <= 0 {
            if a.ty == b.ty && a.tx == b.tx { return }   // same start, ordered by slope: rounding only
            y = c.nextUp
        } else {
            y = c + (yb - c) * (dTop / (dTop - dBot))
        }
        if y <= c { y = c.nextUp }
        if y > yb { y = yb }
        // x from the steeper edge: its x(y) is well conditioned, while a nearly horizontal
        // edge's x(y) is quantized by the few representable y in its extent. An edge that
        // ends on the crossing's row is not split: the row orders what continues.
        let p = Point(abs(a.slope) <= abs(b.slope) ? a.x(at: y) : b.x(at: y), y)
        splitBudget -= 1
        if p.y < a.by { split(li, at: p) }
        if p.y < b.by { split(ri, at: p) }
    }

    mutating func split(_ id: Int32, at p: Point) {
        let e = edges[Int(id)]
        guard p.y > e.ty else { return }
        let newId = Int32(edges.count)
        edges.append(SweepEdge(top: p, bottom: Point(e.bx, e.by), winding: e.winding))
        edges[Int(id)].setBottom(p)
        pending.push(EventKey(y: p.y, x: p.x, id: newId))
        ends.push(EventKey(y: p.y, x: p.x, id: id))
    }
}
