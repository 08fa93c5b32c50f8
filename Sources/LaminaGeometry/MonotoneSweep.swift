/// Fast path of `FillTessellator` for *simple* contour sets: contours that neither cross,
/// touch nor share a vertex position, with every edge on the boundary of the filled region
/// (so nonZero windings stay in −1…1). Glyphs, rings with holes and stars are such inputs.
///
/// One sweep over the vertices sorted by (y, x) does three things at once:
/// * it proves the input simple (Shamos–Hoey): every pair of edges that becomes adjacent in
///   the active list is tested for intersection, and a vertex's position in the list is
///   found with orientation tests; any test whose sign is not certain under Double rounding,
///   any intersection, duplicate position or non-boundary edge makes `run` return false, and
///   the caller falls back to the general sweep (`FillSweep`), which handles everything;
/// * it decomposes the region into y-monotone pieces (start, split, merge, end and regular
///   vertices, with a merge pending until the next vertex of its span);
/// * it triangulates each piece with the linear reflex-chain stack as vertices arrive, so
///   the output is n − 2 + 2·holes triangles that never overlap.
///
/// All working storage is one allocation, addressed by index; nothing is allocated per
/// event.
struct MonotoneSweep {
    /// One entry of the active list (edges crossing the sweep line, left to right).
    struct Active {
        var edge: Int32     // edge id = index of its first vertex in contour order
        var wind: Int32     // winding number just right of the edge
        var t0: Int32       // the span to the right (when inside): its tessellator, or -1
        var t1: Int32       // with a merge pending: the tessellator right of the merge vertex
    }

    let P: UnsafePointer<Point>
    let n: Int
    let rule: FillRule
    // Per vertex (and per edge: edge i runs from vertex i to nxt[i]).
    let nxt: UnsafeMutablePointer<Int32>
    let prv: UnsafeMutablePointer<Int32>
    let rank: UnsafeMutablePointer<Int32>
    let order: UnsafeMutablePointer<Int32>
    let insideRight: UnsafeMutablePointer<Int32>   // per edge, set when it enters the list
    let edgePos: UnsafeMutablePointer<Int32>       // per edge: its index in the list when last placed (a hint)
    // Active list.
    let act: UnsafeMutablePointer<Active>
    var actCount = 0
    // Tessellators: the top node of a reflex-chain stack and the chain of that top (0: the
    // stack holds one vertex, 1: left chain, 2: right chain).
    let tHead: UnsafeMutablePointer<Int32>
    let tSide: UnsafeMutablePointer<Int32>
    var tCount = 0
    let tCap: Int
    // Stack nodes, bump-allocated: vertex and the node below.
    let nodeV: UnsafeMutablePointer<Int32>
    let nodeBelow: UnsafeMutablePointer<Int32>
    var nodeCount = 0
    let nodeCap: Int
    // Output indices.
    let out: UnsafeMutablePointer<UInt32>
    let outCap: Int
    var outCount = 0

    static let left: Int32 = 1
    static let right: Int32 = 2

    /// Number of Int32 words of working storage for `n` vertices.
    static func words(_ n: Int) -> Int { 5 * n + 4 * n + 2 * (n + 1) + 2 * (4 * n + 8) + n }

    /// - Parameters:
    ///   - storage: `words(n)` Int32s; `act` room for `n` entries; `out` room for `outCap` indices.
    init(points: UnsafePointer<Point>, count n: Int, rule: FillRule, storage s: UnsafeMutablePointer<Int32>,
         out: UnsafeMutablePointer<UInt32>, outCap: Int) {
        P = points; self.n = n; self.rule = rule
        nxt = s; prv = s + n; rank = s + 2 * n; order = s + 3 * n; insideRight = s + 4 * n
        // SAFETY: Active is four Int32s (trivial, same alignment); the region is 4n words.
        act = UnsafeMutableRawPointer(s + 5 * n).bindMemory(to: Active.self, capacity: n)
        tCap = n + 1
        tHead = s + 9 * n; tSide = tHead + tCap
        nodeCap = 4 * n + 8
        nodeV = tSide + tCap; nodeBelow = nodeV + nodeCap
        edgePos = nodeBelow + nodeCap
        self.out = out; self.outCap = outCap
    }

    // MARK: Predicates

    /// Sign of the orientation of c against the directed line a→b (positive: c is left of a
    /// downward a→b, y down), or 0 when Double rounding could have decided the sign.
    @inline(__always) func orient(_ a: Int32, _ b: Int32, _ c: Int32) -> Int { MonotoneSweep.orient(P, a, b, c) }

    /// `orient` of the points `P[a]`, `P[b]`, `P[c]`. (Static, for `disjointSlow` too.)
    @inline(__always) static func orient(_ P: UnsafePointer<Point>, _ a: Int32, _ b: Int32, _ c: Int32) -> Int {
        let pa = P[Int(a)], pb = P[Int(b)], pc = P[Int(c)]
        let l = (pb.x - pa.x) * (pc.y - pa.y), r = (pb.y - pa.y) * (pc.x - pa.x)
        let d = l - r
        // Shewchuk's bound for this expression is about 3.3e-16 · (|l| + |r|).
        let bound = 1e-14 * (abs(l) + abs(r))
        return d > bound ? 1 : (d < -bound ? -1 : 0)
    }

    @inline(__always) func top(_ e: Int32) -> Int32 {
        let j = nxt[Int(e)]
        return rank[Int(e)] < rank[Int(j)] ? e : j
    }
    @inline(__always) func bottom(_ e: Int32) -> Int32 {
        let j = nxt[Int(e)]
        return rank[Int(e)] < rank[Int(j)] ? j : e
    }
    /// +1 when the contour runs down the edge, −1 when up.
    @inline(__always) func dir(_ e: Int32) -> Int32 {
        rank[Int(e)] < rank[Int(nxt[Int(e)])] ? 1 : -1
    }

    /// Side of vertex v against edge e: −1 right of it, +1 left, 0 on it (v is an endpoint)
    /// — or nil when too close to call.
    @inline(__always) func side(_ v: Int32, _ e: Int32) -> Int? {
        let t = top(e), b = bottom(e)
        if t == v || b == v { return 0 }
        let o = orient(t, b, v)
        return o == 0 ? nil : o
    }

    /// False when edges e and f may share a point other than a common endpoint; e is the
    /// left neighbour of f in the active list. The usual case — e's x range ends before f's
    /// begins — is decided inline.
    @inline(__always) func disjoint(_ e: Int32, _ f: Int32) -> Bool {
        let pa = P[Int(e)], pb = P[Int(nxt[Int(e)])], pc = P[Int(f)], pd = P[Int(nxt[Int(f)])]
        if max(pa.x, pb.x) < min(pc.x, pd.x) { return true }
        return MonotoneSweep.disjointSlow(P, nxt, e, f)
    }

    /// `disjoint` past its first test. (Static: a method call would copy the sweep.)
    @inline(never) static func disjointSlow(_ P: UnsafePointer<Point>, _ nxt: UnsafeMutablePointer<Int32>,
                                            _ e: Int32, _ f: Int32) -> Bool {
        @inline(__always) func orient(_ a: Int32, _ b: Int32, _ c: Int32) -> Int { MonotoneSweep.orient(P, a, b, c) }
        let a = e, b = nxt[Int(e)], c = f, d = nxt[Int(f)]
        let pa = P[Int(a)], pb = P[Int(b)], pc = P[Int(c)], pd = P[Int(d)]
        if max(pc.x, pd.x) < min(pa.x, pb.x) { return true }
        // (Edges tested are neighbours in the active list, so their y ranges overlap.)
        // A shared endpoint s: disjoint elsewhere unless the other ends are collinear with it.
        if a == d { return orient(a, b, c) != 0 }
        if b == c { return orient(a, b, d) != 0 }
        let o1 = orient(a, b, c), o2 = orient(a, b, d)
        if o1 != 0 && o1 == o2 { return true }
        let o3 = orient(c, d, a), o4 = orient(c, d, b)
        return o3 != 0 && o3 == o4
    }

    // MARK: Output and reflex-chain stacks

    /// Appends triangle (a, b, c) unless it has no area. False when out of room (cannot
    /// happen for a valid decomposition; the caller then falls back).
    @inline(__always) mutating func emit(_ a: Int32, _ b: Int32, _ c: Int32) -> Bool {
        let pa = P[Int(a)], pb = P[Int(b)], pc = P[Int(c)]
        if (pb.x - pa.x) * (pc.y - pa.y) == (pb.y - pa.y) * (pc.x - pa.x) { return true }
        if outCount + 3 > outCap { return false }
        out[outCount] = UInt32(a); out[outCount + 1] = UInt32(b); out[outCount + 2] = UInt32(c)
        outCount += 3
        return true
    }

    @inline(__always) mutating func node(_ v: Int32, below: Int32) -> Int32? {
        if nodeCount == nodeCap { return nil }
        nodeV[nodeCount] = v; nodeBelow[nodeCount] = below
        nodeCount += 1
        return Int32(truncatingIfNeeded: nodeCount - 1)
    }

    /// A new monotone piece whose top is v.
    @inline(__always) mutating func startTess(_ v: Int32) -> Int32? {
        if tCount == tCap { return nil }
        guard let h = node(v, below: -1) else { return nil }
        tHead[tCount] = h; tSide[tCount] = 0
        tCount += 1
        return Int32(truncatingIfNeeded: tCount - 1)
    }

    /// Adds vertex v on chain `s` of piece t, emitting the triangles it completes.
    @inline(__always) mutating func add(_ t: Int32, _ v: Int32, _ s: Int32) -> Bool {
        var head = tHead[Int(t)]
        if nodeBelow[Int(head)] < 0 {
            guard let h = node(v, below: head) else { return false }
            tHead[Int(t)] = h; tSide[Int(t)] = s
            return true
        }
        if tSide[Int(t)] != s {
            // Opposite chain: v sees the whole stack; fan it, keep the old top and v.
            var a = head
            while true {
                let b = nodeBelow[Int(a)]
                if b < 0 { break }
                if !emit(v, nodeV[Int(a)], nodeV[Int(b)]) { return false }
                a = b
            }
            nodeBelow[Int(head)] = -1
        } else {
            // Same chain: cut ears while the chain turns toward the inside at the top.
            let pv = P[Int(v)]
            while true {
                let below = nodeBelow[Int(head)]
                if below < 0 { break }
                let b = nodeV[Int(head)], a = nodeV[Int(below)]
                let pa = P[Int(a)], pb = P[Int(b)]
                let cr = (pb.x - pa.x) * (pv.y - pb.y) - (pb.y - pa.y) * (pv.x - pb.x)
                if s == MonotoneSweep.left ? !(cr < 0) : !(cr > 0) { break }
                if !emit(v, b, a) { return false }
                head = below
            }
        }
        guard let h = node(v, below: head) else { return false }
        tHead[Int(t)] = h; tSide[Int(t)] = s
        return true
    }

    /// Closes piece t at its bottom vertex v.
    mutating func end(_ t: Int32, _ v: Int32) -> Bool {
        var a = tHead[Int(t)]
        while true {
            let b = nodeBelow[Int(a)]
            if b < 0 { return true }
            if !emit(v, nodeV[Int(a)], nodeV[Int(b)]) { return false }
            a = b
        }
    }

    // MARK: Active list

    @inline(__always) mutating func insert(_ k: Int, _ x: Active, _ y: Active) {
        // SAFETY: k ≤ actCount and actCount + 2 ≤ n (each edge is in the list at most once).
        if k < actCount {
            UnsafeMutableRawPointer(act + k + 2).copyMemory(from: act + k, byteCount: (actCount - k) * MemoryLayout<Active>.stride)
        }
        act[k] = x; act[k + 1] = y
        edgePos[Int(x.edge)] = Int32(k); edgePos[Int(y.edge)] = Int32(k + 1)
        actCount += 2
    }

    @inline(__always) mutating func remove2(_ k: Int) {
        // SAFETY: k + 2 ≤ actCount.
        if k + 2 < actCount {
            UnsafeMutableRawPointer(act + k).copyMemory(from: act + k + 2, byteCount: (actCount - k - 2) * MemoryLayout<Active>.stride)
        }
        actCount -= 2
    }

    /// First index whose edge v is not strictly right of, or nil when a test is too close.
    @inline(__always) func lowerBound(_ v: Int32) -> Int? {
        var lo = 0, hi = actCount
        while lo < hi {
            let mid = (lo + hi) >> 1
            guard let s = side(v, act[mid].edge) else { return nil }
            if s < 0 { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Index of active edge e, which ends at v: its hint (inserts and removals on the left
    /// move it by 2), else a binary search.
    @inline(__always) mutating func find(_ e: Int32, _ v: Int32) -> Int? {
        let h = Int(edgePos[Int(e)])
        if h < actCount && act[h].edge == e { return h }
        if h + 2 < actCount && act[h + 2].edge == e { edgePos[Int(e)] = Int32(h + 2); return h + 2 }
        if h >= 2 && h - 2 < actCount && act[h - 2].edge == e { edgePos[Int(e)] = Int32(h - 2); return h - 2 }
        guard let k = lowerBound(v) else { return nil }
        if k < actCount && act[k].edge == e { edgePos[Int(e)] = Int32(k); return k }
        if k + 1 < actCount && act[k + 1].edge == e { edgePos[Int(e)] = Int32(k + 1); return k + 1 }
        return nil
    }

    @inline(__always) func inside(_ w: Int32) -> Bool { rule.isInside(w) }

    // MARK: The sweep

    /// Sorts the vertices (nxt/prv already set) and sweeps. False: not simple (or not
    /// provably so); the output is then meaningless.
    mutating func run() -> Bool {
        for r in 0 ..< n {
            let v = order[r]
            let p = prv[Int(v)], q = nxt[Int(v)]
            let r32 = Int32(truncatingIfNeeded: r)
            let pAbove = rank[Int(p)] < r32, qAbove = rank[Int(q)] < r32
            if pAbove != qAbove {
                if !regular(v, old: pAbove ? p : v, new: pAbove ? v : p) { return false }
            } else if !pAbove {
                if !startOrSplit(v, p, q) { return false }
            } else {
                if !endOrMerge(v, p) { return false }
            }
        }
        return actCount == 0
    }

    mutating func startOrSplit(_ v: Int32, _ p: Int32, _ q: Int32) -> Bool {
        guard let k = lowerBound(v) else { return false }
        // Edge p (p→v, goes up) and edge v (v→q, goes down); the one whose far end is left of
        // the other leaves v on the left.
        let o = orient(v, q, p)
        if o == 0 { return false }
        let (l, r) = o > 0 ? (p, v) : (v, p)
        let wl: Int32 = k > 0 ? act[k - 1].wind : 0
        let wm = wl &+ dir(l)
        if inside(wl) == inside(wm) { return false }   // an edge inside the fill: general path
        insideRight[Int(l)] = inside(wm) ? 1 : 0
        insideRight[Int(r)] = inside(wl) ? 1 : 0
        if inside(wl) {
            // Split: v lies inside the span owned by act[k - 1].
            let t0 = act[k - 1].t0, t1 = act[k - 1].t1
            var leftPiece: Int32, rightPiece: Int32
            if t1 >= 0 {
                if !add(t0, v, MonotoneSweep.right) || !add(t1, v, MonotoneSweep.left) { return false }
                leftPiece = t0; rightPiece = t1
            } else {
                let h = nodeV[Int(tHead[Int(t0)])]
                guard let nt = startTess(h) else { return false }
                if tSide[Int(t0)] == MonotoneSweep.left {
                    if !add(t0, v, MonotoneSweep.left) || !add(nt, v, MonotoneSweep.right) { return false }
                    leftPiece = nt; rightPiece = t0
                } else {
                    if !add(t0, v, MonotoneSweep.right) || !add(nt, v, MonotoneSweep.left) { return false }
                    leftPiece = t0; rightPiece = nt
                }
            }
            act[k - 1].t0 = leftPiece; act[k - 1].t1 = -1
            insert(k, Active(edge: l, wind: wm, t0: -1, t1: -1), Active(edge: r, wind: wl, t0: rightPiece, t1: -1))
        } else {
            guard let t = startTess(v) else { return false }
            insert(k, Active(edge: l, wind: wm, t0: t, t1: -1), Active(edge: r, wind: wl, t0: -1, t1: -1))
        }
        if k > 0 && !disjoint(act[k - 1].edge, l) { return false }
        if k + 2 < actCount && !disjoint(r, act[k + 2].edge) { return false }
        return true
    }

    @inline(__always) mutating func regular(_ v: Int32, old: Int32, new: Int32) -> Bool {
        guard let k = find(old, v) else { return false }
        if inside(act[k].wind) {
            // v is on the left chain of the span right of the edge.
            let t0 = act[k].t0, t1 = act[k].t1
            if t1 >= 0 {
                if !end(t0, v) || !add(t1, v, MonotoneSweep.left) { return false }
                act[k].t0 = t1; act[k].t1 = -1
            } else if !add(t0, v, MonotoneSweep.left) { return false }
            insideRight[Int(new)] = 1
        } else {
            guard k > 0, inside(act[k - 1].wind) else { return false }
            let t0 = act[k - 1].t0, t1 = act[k - 1].t1
            if t1 >= 0 {
                if !end(t1, v) || !add(t0, v, MonotoneSweep.right) { return false }
                act[k - 1].t1 = -1
            } else if !add(t0, v, MonotoneSweep.right) { return false }
            insideRight[Int(new)] = 0
        }
        act[k].edge = new
        edgePos[Int(new)] = Int32(k)
        // `disjoint` against both neighbours, the new edge's x range computed once.
        let x0 = P[Int(new)].x, x1 = P[Int(nxt[Int(new)])].x
        let lo = min(x0, x1), hi = max(x0, x1)
        if k > 0 {
            let e = act[k - 1].edge
            if !(max(P[Int(e)].x, P[Int(nxt[Int(e)])].x) < lo) && !MonotoneSweep.disjointSlow(P, nxt, e, new) { return false }
        }
        if k + 1 < actCount {
            let f = act[k + 1].edge
            if !(hi < min(P[Int(f)].x, P[Int(nxt[Int(f)])].x)) && !MonotoneSweep.disjointSlow(P, nxt, new, f) { return false }
        }
        return true
    }

    mutating func endOrMerge(_ v: Int32, _ p: Int32) -> Bool {
        guard let kp = find(p, v), let kv = find(v, v), abs(kp - kv) == 1 else { return false }
        let k = min(kp, kv)
        if inside(act[k].wind) {
            let t0 = act[k].t0, t1 = act[k].t1
            if !end(t0, v) { return false }
            if t1 >= 0 && !end(t1, v) { return false }
        } else {
            // Merge: the spans left (owned by k − 1) and right (owned by k + 1) join; v stays
            // pending as the top of the diagonal to the span's next vertex.
            guard k > 0, inside(act[k - 1].wind), inside(act[k + 1].wind) else { return false }
            let tl = act[k - 1].t0
            if act[k - 1].t1 >= 0 {
                if !end(act[k - 1].t1, v) { return false }
            }
            if !add(tl, v, MonotoneSweep.right) { return false }
            var tr = act[k + 1].t0
            if act[k + 1].t1 >= 0 {
                if !end(tr, v) { return false }
                tr = act[k + 1].t1
            }
            if !add(tr, v, MonotoneSweep.left) { return false }
            act[k - 1].t1 = tr
        }
        remove2(k)
        if k > 0 && k < actCount && !disjoint(act[k - 1].edge, act[k].edge) { return false }
        return true
    }
}

extension FillTessellator {
    /// The simple-input fast path: nil when the input is not provably simple.
    static func monotoneFill(_ polygons: [[Point]], rule: FillRule, boundary: inout [BoundaryRun]?) -> TriangleList? {
        var total = 0
        for poly in polygons { total += poly.count }
        if total < 3 { return nil }
        let words = MonotoneSweep.words(total)
        // SAFETY: released below on every path; the sweep addresses it by the layout in init.
        let storage = UnsafeMutablePointer<Int32>.allocate(capacity: words)
        defer { storage.deallocate() }
        let nxt = storage, prv = storage + total
        var contours = 0
        var n = 0
        var yLo = Double.infinity, yHi = -Double.infinity
        // Points without consecutive duplicates (a contour's closing copy of its first point
        // included); contours left with fewer than 3 are dropped.
        let points = [Point](unsafeUninitializedCapacity: total) { buf, count in
            let dst = buf.baseAddress!
            for poly in polygons {
                poly.withUnsafeBufferPointer { src in
                    let first = n
                    guard var last = src.first else { return }
                    dst[n] = last; n += 1
                    yLo = min(yLo, last.y); yHi = max(yHi, last.y)
                    for i in 1 ..< src.count {
                        let p = src[i]
                        if p != last {
                            dst[n] = p; n += 1; last = p
                            yLo = min(yLo, p.y); yHi = max(yHi, p.y)
                        }
                    }
                    while n - first > 1 && dst[n - 1] == dst[first] { n -= 1 }
                    let m = n - first
                    if m < 3 { n = first; return }
                    contours += 1
                    for i in first ..< first + m {
                        nxt[i] = Int32(truncatingIfNeeded: i + 1); prv[i] = Int32(truncatingIfNeeded: i - 1)
                    }
                    nxt[first + m - 1] = Int32(first); prv[first] = Int32(first + m - 1)
                }
            }
            count = n
        }
        if n == 0 { return TriangleList() }
        let rank = storage + 2 * n, order = storage + 3 * n
        // The layout in init uses n (points kept), not total: move prv to its place.
        if n != total { for i in 0 ..< n { storage[n + i] = prv[i] } }
        // Sort vertices by (y, x); equal positions are not simple.
        let distinct = points.withUnsafeBufferPointer { sortVertices($0.baseAddress!, n, order, yRange: (yLo, yHi)) }
        if !distinct { return nil }
        for r in 0 ..< n { rank[Int(order[r])] = Int32(truncatingIfNeeded: r) }
        let outCap = 3 * (n + 2 * contours)
        var ok = false
        let indices = points.withUnsafeBufferPointer { pts in
            [UInt32](unsafeUninitializedCapacity: outCap) { buf, count in
                var sweep = MonotoneSweep(points: pts.baseAddress!, count: n, rule: rule, storage: storage,
                                          out: buf.baseAddress!, outCap: outCap)
                ok = sweep.run()
                count = ok ? sweep.outCount : 0
            }
        }
        if !ok { return nil }
        if boundary != nil {
            var runs: [BoundaryRun] = []
            runs.reserveCapacity(n)
            for i in 0 ..< n {
                let j = Int(storage[i])
                let downward = rank[i] < rank[j]
                let t = downward ? points[i] : points[j], b = downward ? points[j] : points[i]
                let d = (b - t).normalized
                let rightNormal = Point(d.y, -d.x)
                let insideRight = storage[4 * n + i] != 0
                runs.append(BoundaryRun(a: t, b: b, outward: insideRight ? -rightNormal : rightNormal))
            }
            boundary = runs
        }
        return TriangleList(points: points, indices: indices)
    }
}
