import LaminaGeometry
import Testing
@testable import LaminaFrame

/// Damage rectangles for hand-made lists (issue 11, item 3). Each expected box is worked out
/// from the items' geometry: the changed items' device bounds before and after, with the
/// anti-aliasing margin (1.5 px in the planner's bounds, half a pixel more here) and a blurred
/// shadow's reach (⌈3σ⌉ + 1), so the damage lies between the exact bounds and those grown by
/// the margins.
@Suite struct DamageTests {
    static let size = 200

    func list(_ items: [DrawItem], clips: [Clip] = []) -> DrawList {
        DrawList(width: Self.size, height: Self.size, clearColor: .black, items: items, clips: clips)
    }

    func square(_ x: Double, _ y: Double, _ side: Double, _ color: Color = Color(1, 0, 0), clip: Int = -1) -> DrawItem {
        DrawItem(transform: .translation(x, y), bounds: Rect(0, 0, side, side), backgroundColor: color, clip: clip)
    }

    /// `d` contains `inner` and lies within `inner` grown by `margin` (both clamped to the target).
    func expect(_ d: PixelRect, holds inner: PixelRect, margin: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let whole = PixelRect(minX: 0, minY: 0, maxX: Self.size, maxY: Self.size)
        let i = inner.intersection(whole)
        let o = PixelRect(minX: inner.minX - margin, minY: inner.minY - margin, maxX: inner.maxX + margin,
                          maxY: inner.maxY + margin).intersection(whole)
        #expect(d.minX <= i.minX && d.minY <= i.minY && d.maxX >= i.maxX && d.maxY >= i.maxY,
                "\(d) does not hold \(i)", sourceLocation: sourceLocation)
        #expect(d.minX >= o.minX && d.minY >= o.minY && d.maxX <= o.maxX && d.maxY <= o.maxY,
                "\(d) reaches beyond \(o)", sourceLocation: sourceLocation)
    }

    @Test func equalListsHaveNoDamage() {
        var tracker = DamageTracker()
        let a = list([square(10, 10, 20), square(50, 50, 30, Color(0, 1, 0))])
        #expect(tracker.damage(from: a, to: a).isEmpty)
    }

    @Test func aMovedSquareDamagesWhereItWasAndWhereItIs() {
        var tracker = DamageTracker()
        let a = list([square(100, 100, 50), square(10, 10, 20)])
        let b = list([square(100, 100, 50), square(30, 15, 20)])
        // Before 10…30 × 10…30, after 30…50 × 15…35.
        expect(tracker.damage(from: a, to: b), holds: PixelRect(minX: 10, minY: 10, maxX: 50, maxY: 35), margin: 3)
    }

    @Test func aColorChangeUnderAClipIsCutByTheClip() {
        var tracker = DamageTracker()
        let clip = Clip(transform: .translation(20, 20), rect: Rect(0, 0, 10, 10))
        let a = list([square(0, 0, 100, clip: 0)], clips: [clip])
        let b = list([square(0, 0, 100, Color(0, 0, 1), clip: 0)], clips: [clip])
        expect(tracker.damage(from: a, to: b), holds: PixelRect(minX: 20, minY: 20, maxX: 30, maxY: 30), margin: 3)
    }

    @Test func aMovedClipDamagesItsItems() {
        var tracker = DamageTracker()
        let a = list([square(0, 0, 100, clip: 0)], clips: [Clip(transform: .translation(20, 20), rect: Rect(0, 0, 10, 10))])
        let b = list([square(0, 0, 100, clip: 0)], clips: [Clip(transform: .translation(60, 20), rect: Rect(0, 0, 10, 10))])
        // The item's unclipped bounds, cut by each list's clip: 20…30 and 60…70.
        expect(tracker.damage(from: a, to: b), holds: PixelRect(minX: 20, minY: 20, maxX: 70, maxY: 30), margin: 3)
    }

    @Test func aChangeInsideABlurredShadowReachesAsFarAsTheBlur() {
        var tracker = DamageTracker()
        let sigma = 4.0
        let marker = DrawItem(bounds: .zero, backgroundColor: .clear,
                              kind: .shadowGroup(color: Color(0, 0, 0, 0.5), sigma: sigma, count: 1))
        let a = list([marker, square(80, 80, 20)])
        let b = list([marker, square(80, 80, 20, Color(0, 1, 0, 0.5))])
        // 80…100 grown by ⌈3σ⌉ + 1 = 13.
        expect(tracker.damage(from: a, to: b), holds: PixelRect(minX: 67, minY: 67, maxX: 113, maxY: 113), margin: 3)
    }

    @Test func aGroupsOpacityDamagesItsWholeContent() {
        var tracker = DamageTracker()
        func group(_ opacity: Double) -> DrawItem {
            DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: opacity, count: 2))
        }
        let a = list([square(0, 150, 10), group(0.5), square(20, 20, 10), square(60, 40, 10)])
        let b = list([square(0, 150, 10), group(0.8), square(20, 20, 10), square(60, 40, 10)])
        expect(tracker.damage(from: a, to: b), holds: PixelRect(minX: 20, minY: 20, maxX: 70, maxY: 50), margin: 3)
    }

    @Test func anInsertedItemDamagesOnlyItself() {
        var tracker = DamageTracker()
        let a = list([square(0, 0, 10), square(100, 100, 10), square(150, 150, 10)])
        let b = list([square(0, 0, 10), square(100, 100, 10), square(40, 60, 10), square(150, 150, 10)])
        expect(tracker.damage(from: a, to: b), holds: PixelRect(minX: 40, minY: 60, maxX: 50, maxY: 70), margin: 3)
    }

    @Test func anItemInsertedIntoAGroupDamagesTheGroup() {
        var tracker = DamageTracker()
        // The inserted item changes the group's count: the group (both versions) is damaged.
        let a = list([DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: 0.5, count: 1)),
                      square(20, 20, 10), square(150, 150, 10)])
        let b = list([DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: 0.5, count: 2)),
                      square(20, 20, 10), square(40, 60, 10), square(150, 150, 10)])
        expect(tracker.damage(from: a, to: b), holds: PixelRect(minX: 20, minY: 20, maxX: 50, maxY: 70), margin: 3)
    }

    /// The members a marker spans, read from the item's storage (`groupCount`, what the tracker
    /// opens groups by), against the counts each kind was made with; nil for items that span none.
    @Test func groupCountsAreTheKindsCounts() {
        func item(_ kind: DrawItem.Kind) -> DrawItem {
            var i = square(0, 0, 10)
            i.kind = kind
            return i
        }
        let spans: [DrawItem.Kind] = [
            .group(opacity: 0.5, count: 3), .shadowGroup(color: .black, sigma: 2, count: 4), .mask(count: 5),
            .blend(mode: .multiplyBlendMode, opacity: 1, count: 6), .filter(filters: [], opacity: 1, count: 7),
            .raster(RasterDraw(page: 1, region: PixelRect(minX: 0, minY: 0, maxX: 8, maxY: 8), version: 9, count: 8)),
        ]
        #expect(spans.map { item($0).groupCount } == [3, 4, 5, 6, 7, 8])
        let single: [DrawItem.Kind] = [
            .rect, .shadow(sigma: 3), .backdrop(filters: []),
            .mesh(MeshDraw(id: MeshID.unique(), mesh: Mesh(bounds: Rect(0, 0, 4, 4)), color: .white)),
            .gradient(GradientFill(type: .axial, start: Point(0, 0), end: Point(1, 0), colors: [.black, .white])),
        ]
        #expect(single.map { item($0).groupCount == nil } == [true, true, true, true, true])
        #expect((spans + single).map { item($0).isBackdrop } == [false, false, false, false, false, false,
                                                                 false, false, true, false, false])
    }

    /// A changed mesh item damages its mesh's bounds where drawn, alone or as a group's member:
    /// bounds (0, 0)–(20, 10) translated by (30, 40) are (30, 40)–(50, 50).
    @Test func aChangedMeshDamagesItsBounds() {
        let id = MeshID.unique()
        func mesh(_ color: Color) -> DrawItem {
            var i = DrawItem(transform: .translation(30, 40), bounds: Rect(0, 0, 20, 10), backgroundColor: .clear)
            i.kind = .mesh(MeshDraw(id: id, mesh: Mesh(bounds: Rect(0, 0, 20, 10)), color: color))
            return i
        }
        var group = square(0, 0, 150)
        group.kind = .group(opacity: 0.5, count: 1)
        var tracker = DamageTracker()
        let a = list([square(100, 100, 20), mesh(.white)]), b = list([square(100, 100, 20), mesh(.black)])
        expect(tracker.damage(from: a, to: b), holds: PixelRect(minX: 30, minY: 40, maxX: 50, maxY: 50), margin: 3)
        let c = list([group, mesh(.white), square(100, 100, 20)]), d = list([group, mesh(.black), square(100, 100, 20)])
        expect(tracker.damage(from: c, to: d), holds: PixelRect(minX: 30, minY: 40, maxX: 50, maxY: 50), margin: 3)
    }

    @Test func aNewSizeOrBackgroundDamagesEverything() {
        var tracker = DamageTracker()
        let a = list([square(0, 0, 10)])
        var b = a
        b.clearColor = Color(1, 1, 1)
        #expect(tracker.damage(from: a, to: b) == PixelRect(minX: 0, minY: 0, maxX: Self.size, maxY: Self.size))
        #expect(tracker.damage(from: nil, to: a) == PixelRect(minX: 0, minY: 0, maxX: Self.size, maxY: Self.size))
    }
}
