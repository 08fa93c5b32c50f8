import LaminaGeometry
import LaminaModel

extension LayerTree {
    /// The topmost layer under a canvas point, as `CALayer.hitTest(_:)` on the root: the
    /// farthest descendant containing the point, sublayers tested front to back (higher
    /// zPosition first, then later in the list). Call it on a presentation tree.
    ///
    /// Hidden layers and layers of opacity ≤ 0 are skipped with their sublayers; a layer with
    /// masksToBounds only lets points inside its bounds reach its sublayers; a point is mapped
    /// into each layer's plane through its full 3D transform (perspective included; a point
    /// whose ray misses the plane, or meets it behind the eye, hits nothing). A plain or
    /// gradient layer contains the points of its bounds; a shape layer those of its path under
    /// its fill rule. Client containers are never hit themselves.
    public func hitTest(_ point: Point, from start: LayerID = .root) -> LayerID? {
        hit(start, point, parentToCanvas: .identity)
    }

    private func hit(_ id: LayerID, _ point: Point, parentToCanvas: Transform3D) -> LayerID? {
        guard let node = nodes[id], departing[id] == nil else { return nil }
        let p = node.properties
        let container = id.isClientRoot
        if !container {
            guard !p.isHidden, p.opacity > 0 else { return nil }
        }
        let toCanvas = container ? parentToCanvas : p.transformToSuperlayer.concatenating(parentToCanvas)
        let local = container ? point : Self.unproject(point, toCanvas)
        if !container && p.masksToBounds {
            guard let local, p.bounds.contains(local) else { return nil }
        }
        if !node.sublayers.isEmpty {
            let childBase = container ? toCanvas : p.sublayerSpace.concatenating(toCanvas)
            // Front to back: stable order by zPosition, later siblings in front.
            let order = node.sublayers.enumerated().sorted { a, b in
                let za = nodes[a.element]?.properties.zPosition ?? 0
                let zb = nodes[b.element]?.properties.zPosition ?? 0
                return za != zb ? za > zb : a.offset > b.offset
            }
            for (_, child) in order {
                if let h = hit(child, point, parentToCanvas: childBase) { return h }
            }
        }
        guard !container, let local else { return nil }
        switch node.kind {
        case .shape:
            guard let path = p.path else { return nil }
            return Self.contains(path, local, fillRule: p.fillRule) ? id : nil
        // A text layer hits in its bounds, as CATextLayer; a replicator too (its instances k ≥ 1
        // are not hit-testable, as in Core Animation: only its sublayers, instance 0, hit above).
        case .layer, .gradient, .text, .surface, .replicator, .emitter, .tiled:
            return p.bounds.contains(local) ? id : nil
        }
    }

    /// The point of a layer's z = 0 plane that `m` maps onto the canvas point (x, y), or nil
    /// when there is none in front of the eye (hit testing; the blended-layers view's clips).
    public static func unproject(_ q: Point, _ m: Transform3D) -> Point? {
        if m.m14 == 0 && m.m24 == 0 && m.m44 == 1 {
            // Affine in x and y.
            let det = m.m11 * m.m22 - m.m12 * m.m21
            guard det != 0 else { return nil }
            let dx = q.x - m.m41, dy = q.y - m.m42
            return Point((dx * m.m22 - dy * m.m21) / det, (dy * m.m11 - dx * m.m12) / det)
        }
        // [x y 0 1]·M = (X·w, Y·w, ·, w): two linear equations in x and y.
        let a11 = m.m11 - q.x * m.m14, a12 = m.m21 - q.x * m.m24, b1 = q.x * m.m44 - m.m41
        let a21 = m.m12 - q.y * m.m14, a22 = m.m22 - q.y * m.m24, b2 = q.y * m.m44 - m.m42
        let det = a11 * a22 - a12 * a21
        guard det != 0, det.isFinite else { return nil }
        let x = (b1 * a22 - a12 * b2) / det
        let y = (a11 * b2 - a21 * b1) / det
        let w = x * m.m14 + y * m.m24 + m.m44
        guard w > 0 else { return nil }
        return Point(x, y)
    }

    /// Whether `path` (each subpath implicitly closed, as a fill) contains `p` under `rule`.
    public static func contains(_ path: Path, _ p: Point, fillRule rule: FillRule) -> Bool {
        guard let polylines = try? Flattener.flatten(path, tolerance: 0.05) else { return false }
        var winding: Int32 = 0
        for line in polylines {
            let pts = line.points
            guard pts.count >= 2 else { continue }
            for i in pts.indices {
                let a = pts[i], b = pts[(i + 1) % pts.count]
                if a.y <= p.y {
                    if b.y > p.y && cross(a, b, p) > 0 { winding += 1 }
                } else if b.y <= p.y && cross(a, b, p) < 0 {
                    winding -= 1
                }
            }
        }
        return rule.isInside(winding)
    }

    private static func cross(_ a: Point, _ b: Point, _ p: Point) -> Double {
        (b.x - a.x) * (p.y - a.y) - (p.x - a.x) * (b.y - a.y)
    }
}
