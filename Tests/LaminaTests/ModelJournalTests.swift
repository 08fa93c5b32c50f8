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

    /// Issue 24: a surface layer's pool goes with the uploads (the memfd with `createPool`, its
    /// buffers, the pool's id ended), its last attached buffer is attached again whole, a
    /// buffer in no kept pool (a GPU buffer) is not, waiting frame callbacks are asked again,
    /// and a deleted layer's pool is not sent; files and tiled images are named again.
    @Test func poolsFilesAndTiledImagesAreReplayed() throws {
        var j = ModelJournal()
        let memfd = try #require(KeptDescriptor(duplicating: 0))
        let file = try #require(KeptDescriptor(duplicating: 0))
        let buffers: [Request] = [10, 11].map {
            .createBuffer(id: $0, pool: 9, offset: UInt64($0 - 10) * 64, width: 4, height: 4, stride: 16, format: .bgra8)
        }
        j.apply([.createLayer(id: 5, kind: .surface), .createLayer(id: 6, kind: .surface), .createLayer(id: 7, kind: .surface),
                 .addSublayer(parent: 0, child: 5), .addSublayer(parent: 0, child: 6)], time: 0)
        j.madePool(ModelJournal.PoolRecord(layer: 5, pool: 9, size: 128, fd: memfd, buffers: buffers))
        j.madePool(ModelJournal.PoolRecord(layer: 7, pool: 12, size: 64, fd: memfd, buffers: [
            .createBuffer(id: 13, pool: 12, offset: 0, width: 4, height: 4, stride: 16, format: .rgba8)]))
        j.uploaded(ModelJournal.ImageRecord(name: "file", source: .file(file)))
        j.uploaded(ModelJournal.ImageRecord(name: "drawn", source: .tiled(width: 300, height: 200)))
        j.apply([.attachBuffer(layer: 5, buffer: 10, damage: []), .attachBuffer(layer: 6, buffer: 40, damage: [])], time: 0)
        j.apply([.attachBuffer(layer: 5, buffer: 11, damage: [DamageRect(x: 0, y: 0, width: 1, height: 1)]),
                 .deleteLayer(id: 7)], time: 0)
        let r = j.replay(now: 0, pending: [], waiting: [.frameCallback(id: 77)])
        #expect(r.uploads.map(\.0) == [.openImageFile(name: "file"), .createTiledImage(name: "drawn", width: 300, height: 200),
                                        .createPool(id: 9, size: 128)] + buffers + [.destroyPool(id: 9)])
        #expect(r.uploads.map { $0.1?.fd } == [file.fd, nil, memfd.fd, nil, nil, nil])
        let tail = Array(r.staged.suffix(2))
        #expect(tail == [.attachBuffer(layer: 5, buffer: 11, damage: []), .frameCallback(id: 77)])
        #expect(!r.staged.contains { if case .attachBuffer(6, _, _) = $0 { true } else { false } })
    }
}
