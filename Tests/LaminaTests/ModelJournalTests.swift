import Testing
@testable import Lamina

/// What the reconnecting connection's journal keeps of a layer's committed sets (the replay
/// sets exactly these, in this order): a later set of a key path drops the earlier one and
/// every set below it; a set below a kept key path is kept after it; `frame` is kept as the
/// `bounds.size` and `position` it sets, with the anchor point in force.
@Suite struct ModelJournalTests {
    static func keyPaths(_ l: ModelJournal.LayerRecord) -> [String] { l.properties.map(\.keyPath) }

    @Test func laterSetsReplaceEarlierOnesAndThoseBelowThem() {
        var l = ModelJournal.LayerRecord(kind: .layer)
        l.set("position", .point(Point(1, 2)))
        l.set("position.x", .number(5))
        l.set("opacity", .number(0.5))
        #expect(Self.keyPaths(l) == ["position", "position.x", "opacity"])
        l.set("opacity", .number(0.25))   // the last again: replaced where it is
        #expect(Self.keyPaths(l) == ["position", "position.x", "opacity"])
        #expect(l.properties.last?.value == .number(0.25))
        l.set("position", .point(Point(3, 4)))   // drops position and position.x, then last
        #expect(Self.keyPaths(l) == ["opacity", "position"])
        l.set("positionOffset", .number(1))      // a longer name is not below `position`
        l.set("position", .point(Point(0, 0)))
        #expect(Self.keyPaths(l) == ["opacity", "positionOffset", "position"])
    }

    @Test func aFrameIsKeptAsItsSizeAndPosition() {
        var l = ModelJournal.LayerRecord(kind: .layer)
        l.set("anchorPoint", .point(Point(0, 1)))
        l.set("frame", .rect(Rect(10, 20, 30, 40)))
        #expect(Self.keyPaths(l) == ["anchorPoint", "bounds.size", "position"])
        // position = origin + anchorPoint × size = (10 + 0 × 30, 20 + 1 × 40).
        #expect(l.properties.last?.value == .point(Point(10, 60)))
        #expect(l.properties[1].value == .size(Size(30, 40)))
    }
}
