import LaminaGeometry
import LaminaModel

/// Where a layer's `contents` image goes, as Core Animation places it: the image's natural
/// size is its pixels × `contentsRect`'s size ÷ `contentsScale` (points); `contentsGravity`
/// places or scales that size in the bounds (`frame`); `contentsCenter` then cuts the frame
/// into nine pieces (`ContentsPiece`s) — the corners keep their natural size, the edges stretch
/// along themselves, the middle stretches both ways — and when the frame is smaller than two
/// corners the corners shrink in proportion (the middle is then empty). With the default
/// `contentsCenter` (the unit square) the frame is one piece.
///
/// Pure values; any thread.
///
/// Compact (72 bytes, it is part of every image draw item): with the default `contentsCenter`
/// the cuts are the frame's and the source's edges, derived; a nine-slice's cuts are held in
/// a box of their own (`slices`).
public struct ContentsGeometry: Sendable, Equatable {
    /// The whole contents' rect in the layer's bounds coordinates (points); may reach past the
    /// bounds (`resizeAspectFill`, or a gravity that places an image larger than the bounds).
    public var frame: Rect
    /// The part of the image shown (`contentsRect`, standardized), in its unit square (may
    /// reach past it: edge pixels extend).
    public var source: Rect
    /// The cuts when they are not the frame's and the source's edges (a nine-slice, or cuts
    /// set by hand); nil: derived.
    @usableFromInline var slices: Slices?

    /// Cuts held apart (immutable, shared).
    @usableFromInline final class Slices: Sendable {
        @usableFromInline let x: SIMD4<Double>, y: SIMD4<Double>, u: SIMD4<Double>, v: SIMD4<Double>
        init(_ x: SIMD4<Double>, _ y: SIMD4<Double>, _ u: SIMD4<Double>, _ v: SIMD4<Double>) {
            self.x = x; self.y = y; self.u = u; self.v = v
        }
    }

    /// The cuts of an axis without a nine-slice: both center cuts on its edges.
    @inlinable static func cuts(_ min: Double, _ max: Double) -> SIMD4<Double> { SIMD4(min, min, max, max) }

    /// Cuts of the frame (destination, points) and of the source (unit square), four per axis:
    /// min, the two `contentsCenter` cuts, max.
    @inlinable public var xCuts: SIMD4<Double> {
        get { slices?.x ?? Self.cuts(frame.minX, frame.maxX) }
        set { setCuts(newValue, yCuts, uCuts, vCuts) }
    }
    @inlinable public var yCuts: SIMD4<Double> {
        get { slices?.y ?? Self.cuts(frame.minY, frame.maxY) }
        set { setCuts(xCuts, newValue, uCuts, vCuts) }
    }
    @inlinable public var uCuts: SIMD4<Double> {
        get { slices?.u ?? Self.cuts(source.minX, source.maxX) }
        set { setCuts(xCuts, yCuts, newValue, vCuts) }
    }
    @inlinable public var vCuts: SIMD4<Double> {
        get { slices?.v ?? Self.cuts(source.minY, source.maxY) }
        set { setCuts(xCuts, yCuts, uCuts, newValue) }
    }

    /// Holds the cuts apart unless they are the edges (then derived).
    @usableFromInline mutating func setCuts(_ x: SIMD4<Double>, _ y: SIMD4<Double>, _ u: SIMD4<Double>,
                                            _ v: SIMD4<Double>) {
        slices = nil
        if x != xCuts || y != yCuts || u != uCuts || v != vCuts { slices = Slices(x, y, u, v) }
    }

    public static func == (a: ContentsGeometry, b: ContentsGeometry) -> Bool {
        a.frame == b.frame && a.source == b.source
            && (a.slices === b.slices
                || (a.xCuts == b.xCuts && a.yCuts == b.yCuts && a.uCuts == b.uCuts && a.vCuts == b.vCuts))
    }

    /// One piece: `destination` (points, in the layer's bounds space) shows `source` (the
    /// image's unit square).
    public struct Piece: Sendable, Equatable {
        public var destination: Rect
        public var source: Rect

        @inlinable
        public init(destination: Rect, source: Rect) {
            self.destination = destination
            self.source = source
        }
    }

    /// - Parameters:
    ///   - bounds: the layer's bounds.
    ///   - imageWidth, imageHeight: the image's size in pixels.
    /// - Returns: nil when nothing is drawn (an empty bounds, image or contentsRect, or values
    ///   that are not finite).
    public init?(bounds: Rect, imageWidth: Int, imageHeight: Int, gravity: ContentsGravity, contentsRect: Rect,
                 contentsCenter: Rect, contentsScale: Double) {
        let b = bounds.standardized, r = contentsRect.standardized
        let scale = contentsScale.isFinite && contentsScale > 0 ? contentsScale : 1
        let naturalWidth = Double(imageWidth) * r.width / scale
        let naturalHeight = Double(imageHeight) * r.height / scale
        guard imageWidth > 0, imageHeight > 0, b.width > 0, b.height > 0, naturalWidth > 0, naturalHeight > 0,
              naturalWidth.isFinite, naturalHeight.isFinite, b.origin.isFinite, r.origin.isFinite else { return nil }
        frame = Self.place(naturalWidth, naturalHeight, in: b, gravity)
        source = r
        let c = contentsCenter.standardized
        guard c.origin.isFinite, c.width.isFinite, c.height.isFinite else { return nil }
        // Cuts along one axis: the corners' natural sizes (points), shrunk together when the
        // frame is shorter than both.
        func cuts(_ lo: Double, _ hi: Double, center cLo: Double, _ cHi: Double, sourceLo: Double, sourceSize: Double,
                  pixels: Int) -> (SIMD4<Double>, SIMD4<Double>) {
            let c0 = min(max(cLo, 0), 1), c1 = min(max(cHi, c0), 1)
            let u = SIMD4(sourceLo, sourceLo + c0 * sourceSize, sourceLo + c1 * sourceSize, sourceLo + sourceSize)
            var before = c0 * sourceSize * Double(pixels) / scale
            var after = (1 - c1) * sourceSize * Double(pixels) / scale
            let length = hi - lo
            if before + after > length {
                let shrink = length / (before + after)
                before *= shrink
                after *= shrink
            }
            return (SIMD4(lo, lo + before, hi - after, hi), u)
        }
        let isUnit = c == Rect(0, 0, 1, 1)
        // The unit center: the cuts are the edges (derived; `slices` stays nil).
        if !isUnit {
            let (x, u) = cuts(frame.minX, frame.maxX, center: c.minX, c.maxX, sourceLo: r.minX, sourceSize: r.width,
                              pixels: imageWidth)
            let (y, v) = cuts(frame.minY, frame.maxY, center: c.minY, c.maxY, sourceLo: r.minY, sourceSize: r.height,
                              pixels: imageHeight)
            setCuts(x, y, u, v)
        }
    }

    /// The natural size placed in `b` by `gravity`.
    static func place(_ w: Double, _ h: Double, in b: Rect, _ gravity: ContentsGravity) -> Rect {
        switch gravity {
        case .resize: return b
        case .resizeAspect, .resizeAspectFill:
            let s = gravity == .resizeAspect ? min(b.width / w, b.height / h) : max(b.width / w, b.height / h)
            return Rect(b.midX - w * s / 2, b.midY - h * s / 2, w * s, h * s)
        default:
            let x: Double = switch gravity {
            case .left, .topLeft, .bottomLeft: b.minX
            case .right, .topRight, .bottomRight: b.maxX - w
            default: b.midX - w / 2
            }
            let y: Double = switch gravity {
            case .top, .topLeft, .topRight: b.minY
            case .bottom, .bottomLeft, .bottomRight: b.maxY - h
            default: b.midY - h / 2
            }
            return Rect(x, y, w, h)
        }
    }

    /// The geometry cut to `rect` (points, the layer's bounds space): each axis' cuts clamped into
    /// the rect, and the source cuts moved with them along their piece's linear map, so every
    /// piece shows the same image at the points it keeps. A layer whose `masksToBounds` has no
    /// corner radius draws its contents cut to its bounds this way rather than through its clip
    /// (`DrawListBuilder.appendOwnItems`). Nil when nothing is left.
    public func cropped(to rect: Rect) -> ContentsGeometry? {
        let r = rect.standardized
        guard let (x, u) = Self.crop(xCuts, uCuts, r.minX, r.maxX),
              let (y, v) = Self.crop(yCuts, vCuts, r.minY, r.maxY) else { return nil }
        var out = self
        out.frame = Rect(x[0], y[0], x[3] - x[0], y[3] - y[0])
        out.source = Rect(u[0], v[0], u[3] - u[0], v[3] - v[0])
        out.setCuts(x, y, u, v)
        return out
    }

    /// One axis of `cropped(to:)`: cuts `x` (destination) and `u` (source) within [lo, hi].
    static func crop(_ x: SIMD4<Double>, _ u: SIMD4<Double>, _ lo: Double, _ hi: Double)
        -> (SIMD4<Double>, SIMD4<Double>)? {
        let a = max(lo, x[0]), b = min(hi, x[3])
        guard b > a else { return nil }
        // The source position shown at destination p: along the piece that holds p.
        func source(at p: Double) -> Double {
            for k in 0..<3 where x[k + 1] > x[k] && p >= x[k] && p <= x[k + 1] {
                return u[k] + (p - x[k]) / (x[k + 1] - x[k]) * (u[k + 1] - u[k])
            }
            return p <= x[0] ? u[0] : u[3]
        }
        var cx = x, cu = u
        for i in 0..<4 {
            if x[i] < a { cx[i] = a; cu[i] = source(at: a) } else if x[i] > b { cx[i] = b; cu[i] = source(at: b) }
        }
        return (cx, cu)
    }

    /// The pieces with some area, row by row (top first), left to right: one for the default
    /// `contentsCenter`, up to nine for a nine-slice.
    public var pieces: [Piece] {
        var out: [Piece] = []
        for j in 0..<3 {
            for i in 0..<3 {
                if let piece = piece(i, j) { out.append(piece) }
            }
        }
        return out
    }

    /// Piece (column i, row j) of the 3 × 3 grid, or nil when it has no area.
    @inlinable
    public func piece(_ i: Int, _ j: Int) -> Piece? {
        let x0 = xCuts[i], x1 = xCuts[i + 1], y0 = yCuts[j], y1 = yCuts[j + 1]
        guard x1 > x0, y1 > y0 else { return nil }
        return Piece(destination: Rect(x0, y0, x1 - x0, y1 - y0),
                     source: Rect(uCuts[i], vCuts[j], uCuts[i + 1] - uCuts[i], vCuts[j + 1] - vCuts[j]))
    }
}
