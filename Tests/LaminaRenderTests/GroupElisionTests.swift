import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaPNG
import LaminaTree
import Testing
import TestSupport
@testable import LaminaRender

/// Group opacity without the offscreen image where that is exact (`DrawListBuilder.drawsApart`):
/// a translucent layer whose items, once built, draw apart — at most one drawing item, or
/// items whose device boxes (anti-aliased fringe included) share no pixel, none reading what
/// lies beneath — draws each item with the group's opacity multiplied in. Each scene is drawn
/// both ways (`elidesGroups` off forces the offscreen group) and must match to within one 8-bit
/// rounding; the offscreen passes are counted; and one item's pixel at α over white is
/// checked against the hand-computed blend.
@Suite("Group opacity elided when exact")
struct GroupElisionTests {
    /// At most one 8-bit rounding apart (the offscreen image holds the item at full opacity,
    /// rounded, before it is scaled).
    static let rule = PixelTolerance.independent(mean: 0.1, percent: 0, threshold: 2)

    /// A 64 × 64 scene: layer 1 (the whole canvas, no background) at `opacity`, its sublayers
    /// from 2 on as `sublayers` say.
    static func tree(opacity: Double = 0.5, _ sublayers: [(Rect, Color, [(String, PropertyValue)])]) throws -> LayerTree {
        var c: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
        c += TestScene.layer(1, frame: Rect(0, 0, 64, 64), [("opacity", .number(opacity))])
        for (k, s) in sublayers.enumerated() {
            c += TestScene.layer(UInt32(k + 2), parent: 1, frame: s.0, [("backgroundColor", .color(s.1))] + s.2)
        }
        return try TestScene.tree(c)
    }

    static func list(_ tree: LayerTree, elides: Bool, scale: Double = 1) -> DrawList {
        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: scale, background: Color(1, 1, 1))
        builder.elidesGroups = elides
        return builder.build(tree)
    }

    static func offscreenPasses(_ list: DrawList) -> Int { list.plan.passes.filter { $0.target != .frame }.count }
    static func groups(_ list: DrawList) -> Int {
        list.items.filter { if case .group = $0.kind { true } else { false } }.count
    }

    enum Case: String, CaseIterable, CustomTestStringConvertible {
        case one, oneTurnedRounded, bordered, disjoint, fringesTouch, overlapping, blendInside, nestedOne
        var testDescription: String { rawValue }

        var sublayers: [(Rect, Color, [(String, PropertyValue)])] {
            switch self {
            case .one: [(Rect(8, 8, 30, 30), Color(1, 0, 0), [])]
            case .oneTurnedRounded:
                [(Rect(12, 12, 36, 28), Color(0.2, 0.6, 1), [("cornerRadius", .number(8)),
                                                             ("transform", .transform(.rotation(0.5)))])]
            // One item, but its border is painted over its background (at the item's opacity
            // each: the background shows through the border): a group.
            case .bordered:
                [(Rect(12, 12, 36, 28), Color(0.2, 0.6, 1), [("borderWidth", .number(3)),
                                                             ("borderColor", .color(Color(0.1, 0.1, 0.4)))])]
            case .disjoint: [(Rect(4, 4, 20, 20), Color(1, 0, 0), []), (Rect(34, 34, 20, 20), Color(0, 0, 1), [])]
            // One point apart: their anti-aliased fringes (1.5 pixels each side) meet.
            case .fringesTouch: [(Rect(4, 4, 20, 20), Color(1, 0, 0), []), (Rect(25, 4, 20, 20), Color(0, 0, 1), [])]
            case .overlapping: [(Rect(4, 4, 30, 30), Color(1, 0, 0), []), (Rect(20, 20, 30, 30), Color(0, 0, 1), [])]
            case .blendInside:
                [(Rect(8, 8, 30, 30), Color(1, 0, 0), [("compositingFilter", .string(BlendMode.multiplyBlendMode.rawValue))])]
            case .nestedOne: []
            }
        }

        /// Whether the group (every group) is elided.
        var elided: Bool { [.one, .oneTurnedRounded, .disjoint, .nestedOne].contains(self) }

        func tree() throws -> LayerTree {
            guard self == .nestedOne else { return try GroupElisionTests.tree(sublayers) }
            // A group holding a group holding one layer: both elided, 0.5 × 0.5.
            var c: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
            c += TestScene.layer(1, frame: Rect(0, 0, 64, 64), [("opacity", .number(0.5))])
            c += TestScene.layer(2, parent: 1, frame: Rect(4, 4, 56, 56), [("opacity", .number(0.5))])
            c += TestScene.layer(3, parent: 2, frame: Rect(4, 4, 30, 30), [("backgroundColor", .color(Color(1, 0, 0)))])
            return try TestScene.tree(c)
        }
    }

    /// Each scene elided (or not, as its items say) draws as the same scene forced through the
    /// offscreen group, at scale 1 and 2; an elided group leaves no group item and no offscreen
    /// pass, a kept one the same groups and passes as with elision off.
    @Test(arguments: Case.allCases, [1.0, 2.0])
    func elidedGroupsDrawAsTheOffscreenGroup(_ scene: Case, scale: Double) throws {
        let tree = try scene.tree()
        let on = Self.list(tree, elides: true, scale: scale), off = Self.list(tree, elides: false, scale: scale)
        #expect(Self.groups(off) >= 1 && Self.offscreenPasses(off) >= 1)
        if scene.elided {
            #expect(Self.groups(on) == 0)
            #expect(Self.offscreenPasses(on) == 0)
        } else {
            #expect(Self.groups(on) == Self.groups(off))
            #expect(Self.offscreenPasses(on) == Self.offscreenPasses(off))
        }
        let comparison = PixelComparator.compare(try renderImage(on), try renderImage(off), tolerance: Self.rule)
        #expect(comparison.passed, "\(comparison)")
    }

    /// The pixel inside a red layer in an elided group at 0.5 over white is the blend computed
    /// by hand: 0.5 × (1, 0, 0) + 0.5 × (1, 1, 1) = (255, 127.5, 127.5); nested groups at 0.5
    /// and 0.5, 0.25 × red + 0.75 × white = (255, 191.25, 191.25). Within one level.
    @Test func anElidedItemBlendsAsComputedByHand() throws {
        for (scene, expected) in [(Case.one, 127.5), (.nestedOne, 191.25)] {
            let list = Self.list(try scene.tree(), elides: true)
            #expect(Self.offscreenPasses(list) == 0)
            let image = try renderImage(list)
            let at = (20 * 64 + 20) * 4
            let pixel = image.pixels[at..<at + 4].map(Double.init)
            #expect(pixel[0] == 255 && pixel[3] == 255, "\(scene): \(pixel)")
            #expect(abs(pixel[1] - expected) <= 1 && abs(pixel[2] - expected) <= 1, "\(scene): \(pixel)")
        }
    }
}
