/// Small-input path of `FillTessellator`: at most `maxEdges` edges, any topology (crossings,
/// coincident edges, both fill rules). The pentagram and other small self-intersecting
/// shapes take it; the general sweep's fixed cost (its many arrays, heaps and per-row
/// clusters) is larger than the whole work for such inputs.
///
/// 1. Every pair of edges is tested for a proper crossing (O(n²), n small) with orientation
///    tests that carry a rounding-error bound; both edges are cut at the crossing, which
///    becomes one shared point, so the pieces ("sub-edges") do not cross.
/// 2. One sweep over the rows (distinct y of all sub-edge ends): between two rows every
///    active sub-edge spans the whole slab, so the active list is sorted by x at the slab's
///    middle (insertion sort: it is nearly sorted from the row before) and windings are
///    running sums. Between adjacent sub-edges with an inside winding a span (trapezoid)
///    stays open while the same two sub-edges stay adjacent, as in `FillSweep`.
///
/// Anything uncertain — an orientation too close to call (touching, T-junctions), a
/// crossing whose rounded point falls outside an edge's extent, two sub-edges whose order
/// at the top or bottom of a slab disagrees with the middle, too many crossings — returns
/// nil and the general sweep runs instead, so this path never decides a hard case.
///
/// Working storage is one allocation addressed by index; nothing is allocated per row.
struct SmallFillSweep {
    /// Largest number of (non-horizontal) edges this path takes.
    static let maxEdges = 64

    /// An edge or sub-edge, top to bottom, with the state of the span to its right.
    struct Seg {
        var tx: Double, ty: Double, bx: Double, by: Double
        var slope: Double               // dx/dy
        var key: Double = 0             // x at the middle of the current slab
        var x0: Double = 0, x1: Double = 0   // x at the top and bottom of the current slab
        var cacheY: Double = .nan       // the row of `cacheV`
        var cacheX: Double = 0          // x of `cacheV`
        var spanTLX: Double = 0, spanTRX: Double = 0, spanY: Double = 0
        var w: Int32                    // +1 downward in the input, −1 upward
        var spanRight: Int32 = -1       // right sub-edge of the open span to the right, or -1
        var kept: Int32 = -1            // row stamp when that span continues
        var spanTL: UInt32 = 0, spanTR: UInt32 = 0
        var cacheV: UInt32 = 0

        @inline(__always) init(_ a: Point, _ b: Point, _ w: Int32) {
            tx = a.x; ty = a.y; bx = b.x; by = b.y
            slope = (bx - tx) / (by - ty)
            self.w = w
        }

        /// x at y, exact at the ends, clamped to the extent in between.
        @inline(__always) func x(at y: Double) -> Double {
            if y <= ty { return tx }
            if y >= by { return bx }
            let x = tx + (y - ty) * slope
            return tx < bx ? Swift.min(Swift.max(x, tx), bx) : Swift.min(Swift.max(x, bx), tx)
        }
    }

    /// A vertex's y, its row after snapping, and its index in input order.
    struct YItem { var y: Double; var snapped: Double; var index: Int32 }

    /// A cut of edge `edge` at (x, y).
    struct Cut { var x: Double; var y: Double; var edge: Int32 }

    /// Sign of the orientation of c against a→b, or 0 when rounding could decide it.
    @inline(__always) static func orient(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
                                         _ cx: Double, _ cy: Double) -> Int {
        let l = (bx - ax) * (cy - ay), r = (by - ay) * (cx - ax)
        let d = l - r
        let bound = 1e-14 * (abs(l) + abs(r))
        return d > bound ? 1 : (d < -bound ? -1 : 0)
    }

    /// Interior triangles of `polygons` under `rule`, or nil when the input is too large
    /// or any decision is uncertain (the caller then runs `FillSweep`).
    static func triangulate(_ polygons: [[Point]], rule: FillRule) -> TriangleList? {
        var total = 0
        for poly in polygons where poly.count >= 2 { total += poly.count }
        if total > maxEdges { return nil }
        if total == 0 { return TriangleList() }
        let cutCap = max(2 * total + 8, total * total / 4)   // crossings kept (each cuts two edges)
        let segCap = total + 2 * cutCap
        // Layout: edges, sub-edges (Seg); cuts; order, active, open, cut offsets (Int32).
        let segBytes = (total + segCap) * MemoryLayout<Seg>.stride
        let cutBytes = 2 * cutCap * MemoryLayout<Cut>.stride
        let intCount = (4 * segCap + total + 1 + 3) & ~3   // keeps what follows 16-byte aligned
        let ysBytes = total * MemoryLayout<YItem>.stride
        // Output: each span opened or closed adds at most two vertices and six indices, and
        // spans open only where adjacency changes (≤ 3 per sub-edge); more means the order
        // was not consistent, and the sweep gives up.
        let pointCap = 12 * segCap + 16, indexCap = 18 * segCap + 16
        let outBytes = pointCap * MemoryLayout<Point>.stride + indexCap * 4
        let raw = UnsafeMutableRawPointer.allocate(byteCount: segBytes + cutBytes + ysBytes + 4 * intCount + outBytes, alignment: 16)
        defer { raw.deallocate() }
        // SAFETY: disjoint regions of one allocation, each bound to one trivial type, sized above.
        let edges = raw.bindMemory(to: Seg.self, capacity: total + segCap)
        let segs = edges + total
        let cuts = (raw + segBytes).bindMemory(to: Cut.self, capacity: 2 * cutCap)
        let ints = (raw + segBytes + cutBytes).bindMemory(to: Int32.self, capacity: intCount)
        let order = ints, active = ints + segCap, open = ints + 2 * segCap, pend = ints + 3 * segCap, cutStart = ints + 4 * segCap
        let ys = (raw + segBytes + cutBytes + 4 * intCount).bindMemory(to: YItem.self, capacity: total)
        let outPoints = (raw + segBytes + cutBytes + 4 * intCount + ysBytes).bindMemory(to: Point.self, capacity: pointCap)
        let outIndices = (raw + segBytes + cutBytes + 4 * intCount + ysBytes + pointCap * MemoryLayout<Point>.stride)
            .bindMemory(to: UInt32.self, capacity: indexCap)

        // Vertex rows: y values closer than `snap` become one row (trigonometric rounding
        // leaves a pentagram's "horizontal" edge a few ulps from horizontal, which no crossing
        // could cut); vertices move by at most that much, far below any flattening tolerance.
        var maxAbs = 0.0
        var v = 0
        for poly in polygons where poly.count >= 2 {
            for p in poly {
                maxAbs = max(maxAbs, abs(p.x), abs(p.y))
                ys[v] = YItem(y: p.y, snapped: p.y, index: Int32(v)); v += 1
            }
        }
        let snap = maxAbs * 1e-13
        for k in 1 ..< total {
            let item = ys[k]
            var j = k - 1
            while j >= 0 && ys[j].y > item.y { ys[j + 1] = ys[j]; j -= 1 }
            ys[j + 1] = item
        }
        var needsSnap = false
        for k in 1 ..< total where ys[k].y != ys[k - 1].y && ys[k].y - ys[k - 1].y <= snap { needsSnap = true; break }
        if needsSnap {
            for k in 1 ..< total where ys[k].y - ys[k - 1].y <= snap { ys[k].snapped = ys[k - 1].snapped }
            // Back to input order: ys[index].snapped is then vertex index's row.
            var k = 0
            while k < total {
                let t = Int(ys[k].index)
                if t == k { k += 1 } else { let a = ys[k]; ys[k] = ys[t]; ys[t] = a }
            }
        }

        // Edges, horizontal ones dropped.
        var n = 0
        v = 0
        for poly in polygons where poly.count >= 2 {
            let m = poly.count
            var a = poly[m - 1]
            if needsSnap { a.y = ys[v + m - 1].snapped }
            for i in 0 ..< m {
                var b = poly[i]
                if needsSnap { b.y = ys[v + i].snapped }
                if a.y < b.y { (edges + n).initialize(to: Seg(a, b, 1)); n += 1 }
                else if a.y > b.y { (edges + n).initialize(to: Seg(b, a, -1)); n += 1 }
                a = b
            }
            v += m
        }
        if n == 0 { return TriangleList() }

        // Crossings.
        var cutCount = 0
        for i in 0 ..< n {
            let e = edges[i]
            let eMinX = min(e.tx, e.bx), eMaxX = max(e.tx, e.bx)
            for j in i + 1 ..< n {
                let f = edges[j]
                if f.ty >= e.by || e.ty >= f.by { continue }
                if max(f.tx, f.bx) < eMinX || min(f.tx, f.bx) > eMaxX { continue }
                // A shared end: no other common point unless collinear (then no crossing either).
                if (e.tx == f.tx && e.ty == f.ty) || (e.bx == f.bx && e.by == f.by)
                    || (e.tx == f.bx && e.ty == f.by) || (e.bx == f.tx && e.by == f.ty) { continue }
                let o1 = orient(e.tx, e.ty, e.bx, e.by, f.tx, f.ty), o2 = orient(e.tx, e.ty, e.bx, e.by, f.bx, f.by)
                if o1 == o2 { continue }   // both ends on one side, or collinear (the slabs order ties)
                let o3 = orient(f.tx, f.ty, f.bx, f.by, e.tx, e.ty), o4 = orient(f.tx, f.ty, f.bx, f.by, e.bx, e.by)
                if o3 != 0 && o3 == o4 { continue }
                if o1 == 0 || o2 == 0 || o3 == 0 || o4 == 0 { return nil }   // touching, or too close
                // A proper crossing.
                if cutCount + 2 > 2 * cutCap { return nil }
                let rx = e.bx - e.tx, ry = e.by - e.ty, sx = f.bx - f.tx, sy = f.by - f.ty
                let t = ((f.tx - e.tx) * sy - (f.ty - e.ty) * sx) / (rx * sy - ry * sx)
                let y = e.ty + t * ry
                // x from the steeper edge (see FillSweep.checkCrossing).
                let x = abs(e.slope) <= abs(f.slope) ? e.tx + (y - e.ty) * e.slope : f.tx + (y - f.ty) * f.slope
                if !(y > e.ty && y > f.ty && y < e.by && y < f.by) || !x.isFinite { return nil }
                cuts[cutCount] = Cut(x: x, y: y, edge: Int32(i))
                cuts[cutCount + 1] = Cut(x: x, y: y, edge: Int32(j))
                cutCount += 2
            }
        }

        // Sub-edges: each edge cut at its crossings, in y order (counting sort by edge, then
        // insertion sort of each edge's few cuts by y).
        var s = 0
        if cutCount == 0 {
            for i in 0 ..< n { (segs + i).initialize(to: edges[i]) }
            s = n
        } else {
            for i in 0 ... n { cutStart[i] = 0 }
            for c in 0 ..< cutCount { cutStart[Int(cuts[c].edge) + 1] += 1 }
            for i in 0 ..< n { cutStart[i + 1] += cutStart[i] }
            // Place cuts by edge into the tail of `order`'s region, reused as Cut indices.
            let slot = open   // segCap ≥ cutCount Int32s, free until the sweep
            let fill = active
            for i in 0 ..< n { fill[i] = cutStart[i] }
            for c in 0 ..< cutCount {
                let e = Int(cuts[c].edge)
                slot[Int(fill[e])] = Int32(c); fill[e] += 1
            }
            for i in 0 ..< n {
                let lo = Int(cutStart[i]), hi = Int(cutStart[i + 1])
                let e = edges[i]
                if lo == hi { (segs + s).initialize(to: e); s += 1; continue }
                if hi - lo > 1 {
                    for k in lo + 1 ..< hi {
                        let v = slot[k]
                        var j = k - 1
                        while j >= lo && cuts[Int(slot[j])].y > cuts[Int(v)].y { slot[j + 1] = slot[j]; j -= 1 }
                        slot[j + 1] = v
                    }
                }
                var top = Point(e.tx, e.ty)
                for k in lo ..< hi {
                    let c = cuts[Int(slot[k])]
                    if !(c.y > top.y) { return nil }   // two crossings at one y on this edge
                    (segs + s).initialize(to: Seg(top, Point(c.x, c.y), e.w)); s += 1
                    top = Point(c.x, c.y)
                }
                (segs + s).initialize(to: Seg(top, Point(e.bx, e.by), e.w)); s += 1
            }
        }

        // Sub-edges by top (y, then x).
        for i in 0 ..< s { order[i] = Int32(i) }
        sortByTop(segs, order, s, scratch: active)

        var sweep = SmallFillSweep(segs: segs, rule: rule, eps: maxAbs * 1e-13,
                                   points: outPoints, pointCap: pointCap, indices: outIndices, indexCap: indexCap)
        if !sweep.run(order: order, count: s, active: active, open: open, pend: pend) { return nil }
        let np = sweep.pointCount, ni = sweep.indexCount
        // (`Array(UnsafeBufferPointer)` specializes here; `init(unsafeUninitializedCapacity:)`
        // allocates through the runtime's generic metadata lookup, ~500 instructions more.)
        return TriangleList(points: Array(UnsafeBufferPointer(start: outPoints, count: np)),
                            indices: Array(UnsafeBufferPointer(start: outIndices, count: ni)))
    }

    /// Sorts `order[0 ..< n]` by (ty, tx) of `segs`: insertion sort for small n, else a
    /// bottom-up merge sort through `scratch` (n Int32s).
    static func sortByTop(_ segs: UnsafeMutablePointer<Seg>, _ order: UnsafeMutablePointer<Int32>, _ n: Int,
                          scratch: UnsafeMutablePointer<Int32>) {
        @inline(__always) func less(_ a: Int32, _ b: Int32) -> Bool {
            let p = segs[Int(a)], q = segs[Int(b)]
            return p.ty < q.ty || (p.ty == q.ty && p.tx < q.tx)
        }
        let run = 16
        var lo = 0
        while lo < n {
            let hi = min(n, lo + run)
            if hi - lo > 1 {
                for k in lo + 1 ..< hi {
                    let v = order[k]
                    var j = k - 1
                    while j >= lo && less(v, order[j]) { order[j + 1] = order[j]; j -= 1 }
                    order[j + 1] = v
                }
            }
            lo = hi
        }
        var src = order, dst = scratch
        var width = run
        while width < n {
            var a = 0
            while a < n {
                let mid = min(n, a + width), hi = min(n, a + 2 * width)
                mergeRuns(src, into: dst, a, mid, hi, by: less)
                a = hi
            }
            swap(&src, &dst)
            width *= 2
        }
        if src != order { order.update(from: src, count: n) }
    }

    let segs: UnsafeMutablePointer<Seg>
    let rule: FillRule
    let eps: Double
    let points: UnsafeMutablePointer<Point>
    let pointCap: Int
    var pointCount = 0
    let indices: UnsafeMutablePointer<UInt32>
    let indexCap: Int
    var indexCount = 0
    var lastVX = Double.nan, lastVY = Double.nan
    var lastVI: UInt32 = 0

    init(segs: UnsafeMutablePointer<Seg>, rule: FillRule, eps: Double, points: UnsafeMutablePointer<Point>, pointCap: Int,
         indices: UnsafeMutablePointer<UInt32>, indexCap: Int) {
        self.segs = segs; self.rule = rule; self.eps = eps
        self.points = points; self.pointCap = pointCap; self.indices = indices; self.indexCap = indexCap
    }

    /// The sweep over rows; false when two sub-edges are found crossing inside a slab (or
    /// the output would overflow, which only an inconsistent order could cause).
    mutating func run(order: UnsafeMutablePointer<Int32>, count s: Int, active: UnsafeMutablePointer<Int32>,
                      open: UnsafeMutablePointer<Int32>, pend: UnsafeMutablePointer<Int32>) -> Bool {
        var next = 0
        var actN = 0, openN = 0
        var stamp: Int32 = 0
        var y = segs[Int(order[0])].ty
        while true {
            // Sub-edges ending at y leave; those starting at y join; the next row is the
            // nearest end or start.
            var k = 0
            var y2 = Double.infinity
            for i in 0 ..< actN {
                let by = segs[Int(active[i])].by
                if by > y { active[k] = active[i]; k += 1; y2 = min(y2, by) }
            }
            actN = k
            while next < s && segs[Int(order[next])].ty == y {
                let id = order[next]
                active[actN] = id; actN += 1; next += 1
                y2 = min(y2, segs[Int(id)].by)
            }
            if next < s { y2 = min(y2, segs[Int(order[next])].ty) }
            if actN > 1 {
                let mid = (y + y2) * 0.5
                for i in 0 ..< actN {
                    // ty ≤ y < mid < y2 ≤ by: only the ends need care.
                    let e = segs + Int(active[i])
                    let tx = e.pointee.tx, ty = e.pointee.ty, slope = e.pointee.slope
                    e.pointee.key = tx + (mid - ty) * slope
                    e.pointee.x0 = y == ty ? tx : tx + (y - ty) * slope
                    e.pointee.x1 = y2 == e.pointee.by ? e.pointee.bx : tx + (y2 - ty) * slope
                }
                for i in 1 ..< actN {
                    let v = active[i], kv = segs[Int(v)].key
                    var j = i - 1
                    while j >= 0 && segs[Int(active[j])].key > kv { active[j + 1] = active[j]; j -= 1 }
                    active[j + 1] = v
                }
                // The order at the middle must hold at both ends of the slab (no crossing inside).
                var l = segs + Int(active[0])
                for i in 1 ..< actN {
                    let r = segs + Int(active[i])
                    if l.pointee.x0 > r.pointee.x0 + eps || l.pointee.x1 > r.pointee.x1 + eps { return false }
                    l = r
                }
            }
            // Spans between adjacent sub-edges with an inside winding; the same pair as in the
            // row before keeps its span open.
            stamp &+= 1
            var w: Int32 = 0
            var pendN = 0
            if actN > 1 {
                for i in 0 ..< actN - 1 {
                    let l = segs + Int(active[i])
                    w &+= l.pointee.w
                    if rule.isInside(w) {
                        if l.pointee.spanRight == active[i + 1] { l.pointee.kept = stamp } else { pend[pendN] = Int32(i); pendN += 1 }
                    }
                }
            }
            var newOpen = 0
            for i in 0 ..< openN {
                let l = Int(open[i])
                if segs[l].kept != stamp {
                    if !flush(l, y) { return false }
                    segs[l].spanRight = -1
                } else {
                    open[newOpen] = open[i]; newOpen += 1
                }
            }
            openN = newOpen
            for p in 0 ..< pendN {
                let i = Int(pend[p])
                let l = Int(active[i]), r = Int(active[i + 1])
                guard let tl = vertex(l, y), let tr = vertex(r, y) else { return false }
                segs[l].spanRight = Int32(r)
                segs[l].spanTL = tl; segs[l].spanTR = tr
                segs[l].spanTLX = segs[l].cacheX; segs[l].spanTRX = segs[r].cacheX
                segs[l].spanY = y
                open[openN] = Int32(l); openN += 1
            }
            if y2 == .infinity { return openN == 0 }
            y = y2
        }
    }

    /// The output vertex of sub-edge `id` at row y (shared with the last one when equal).
    @inline(__always) mutating func vertex(_ id: Int, _ y: Double) -> UInt32? {
        let e = segs + id
        if e.pointee.cacheY == y { return e.pointee.cacheV }
        let x = e.pointee.x(at: y)
        let v: UInt32
        if y == lastVY && x == lastVX { v = lastVI } else {
            if pointCount == pointCap { return nil }
            v = UInt32(pointCount)
            points[pointCount] = Point(x, y); pointCount += 1
            lastVX = x; lastVY = y; lastVI = v
        }
        e.pointee.cacheY = y; e.pointee.cacheV = v; e.pointee.cacheX = x
        return v
    }

    /// Closes the span right of `id` at row y: a trapezoid, or a triangle when one side is
    /// a point.
    mutating func flush(_ id: Int, _ y: Double) -> Bool {
        let l = segs + id
        let r = Int(l.pointee.spanRight)
        guard y > l.pointee.spanY else { return true }
        guard let bl = vertex(id, y), let br = vertex(r, y) else { return false }
        let tl = l.pointee.spanTL, tr = l.pointee.spanTR
        let wt = l.pointee.spanTRX - l.pointee.spanTLX, wb = segs[r].cacheX - l.pointee.cacheX
        if wt <= 0 && wb <= 0 { return true }
        if indexCount + 6 > indexCap { return false }
        let o = indices + indexCount
        if wt <= 0 {
            o[0] = tl; o[1] = br; o[2] = bl; indexCount += 3
        } else if wb <= 0 {
            o[0] = tl; o[1] = tr; o[2] = bl; indexCount += 3
        } else {
            o[0] = tl; o[1] = tr; o[2] = br; o[3] = tl; o[4] = br; o[5] = bl; indexCount += 6
        }
        return true
    }
}

extension FillTessellator {
    /// The small-input path (see `SmallFillSweep`): nil when the input has more than
    /// `SmallFillSweep.maxEdges` edges or is not provably handled.
    static func smallFill(_ polygons: [[Point]], rule: FillRule) -> TriangleList? {
        SmallFillSweep.triangulate(polygons, rule: rule)
    }
}
