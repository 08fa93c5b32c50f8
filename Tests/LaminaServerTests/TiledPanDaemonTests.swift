import Foundation
import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaPNG
import LaminaServer
import LaminaWire
import LaminaModel
import LaminaTree
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A tiled layer over a client's PNG file (`openImageFile`) panned and zoomed along a scripted
/// path in the embedded daemon (manual clock, a small `tileCacheBytes`): the tiles kept stay
/// under the budget at every frame, and a frame right after a zoom in draws parts of the coarser
/// tiles already made instead of waiting for the finer ones.
@Suite(.serialized) struct TiledPanDaemonTests {
    @Test func panningStaysUnderTheBudgetAndShowsTheCoarserLevel() throws {
        // 1024 × 1024 (4 MiB decoded: 256 level-0 tiles of 64 × 64, 16 KiB each, 336 with the
        // coarser levels); the budget: 128 tiles (2 MiB), a view needing at most 16 + 4 bands.
        let side = 1024, tileBytes = 64 * 64 * 4, budget = 128 * tileBytes
        var px = [UInt8](repeating: 255, count: side * side * 4)
        for y in 0..<side { for x in 0..<side { px[(y * side + x) * 4] = UInt8(x & 255); px[(y * side + x) * 4 + 1] = UInt8(y & 255) } }
        let path = NSTemporaryDirectory() + "lamina-tiled-pan-\(getpid()).png"
        try Data(PNG.encode(RGBAImage(width: side, height: side, pixels: px))).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        unlink(path)
        let d = EmbeddedDaemon { $0.tileCacheBytes = budget; $0.maxMessageSize = 1 << 16 }
        let c = try #require(d.connect())
        guard case .imageUploaded(_, 1024, 1024) = d.request(.openImageFile(name: "map"), descriptors: [fd], from: c) else {
            Issue.record("openImageFile refused"); return
        }
        func view(x: Double, y: Double, scale: Double) -> [Request] {
            [.setTransaction(TransactionSettings(disableActions: true)),
             .setProperty(id: 1, keyPath: "position", value: .point(Point(-x * scale, -y * scale))),
             .setProperty(id: 1, keyPath: "transform", value: .transform(Transform3D.scale(scale, scale, 1)))]
        }
        let setup: [Request] = [
            .createLayer(id: 1, kind: .tiled), .setProperty(id: 1, keyPath: "bounds", value: .rect(Rect(0, 0, 1024, 1024))),
            .setProperty(id: 1, keyPath: "anchorPoint", value: .point(Point(0, 0))),
            .setProperty(id: 1, keyPath: "contents", value: .string("map")),
            .setProperty(id: 1, keyPath: "tileSize", value: .size(Size(64, 64))),
            .setProperty(id: 1, keyPath: "levelsOfDetail", value: .number(4)),
            .setProperty(id: 1, keyPath: "fadeDuration", value: .number(0)),
            .addSublayer(parent: 0, child: 1),
        ] + view(x: 0, y: 0, scale: 0.25)
        guard case .committed = d.commit(setup, from: c) else { Issue.record("setup refused"); return }
        // The whole image at 1/4 (level 2: 4 × 4 tiles in the 200 × 200 view): let them come.
        _ = d.drawList()
        #expect(d.driver.tileStore.waitUntilIdle(seconds: 60))
        let fitted = TiledLayerItems(d.drawList())
        #expect(fitted.count == 16 && fitted.coarser == 0)
        // Zoom in to 1:1 at (300, 300): level 0 is not made yet; the first frame draws the
        // level-2 tiles' parts (each a quarter of a quarter of a tile) and does not wait.
        let reply = d.commit(view(x: 300, y: 300, scale: 1), from: c)
        guard case .committed = reply else { Issue.record("\(reply)"); return }
        let jumped = TiledLayerItems(d.drawList())
        #expect(jumped.count > 0 && jumped.coarser == jumped.count)
        #expect(d.driver.tileStore.residentBytes <= budget)
        // A pan at 1:1 from the top left to the bottom right, 41 px a frame, 20 frames (every
        // level-0 band in view once: more than the budget made): every frame under budget, and
        // every frame something drawn (the finer tiles or the coarser ones).
        for k in 1...20 {
            _ = d.commit(view(x: Double(k) * 41, y: Double(k) * 41, scale: 1), from: c)
            let items = TiledLayerItems(d.drawList())
            #expect(items.count > 0, "frame \(k): nothing drawn")
            #expect(d.driver.tileStore.residentBytes <= budget, "frame \(k)")
            if k % 5 == 0 { d.driver.tileStore.waitUntilIdle(seconds: 60) }
        }
        #expect(d.driver.tileStore.waitUntilIdle(seconds: 60))
        let settled = TiledLayerItems(d.drawList())
        #expect(settled.count > 0 && settled.coarser == 0)   // now all at level 0
        #expect(d.driver.tileStore.tilesMade > 128)              // more made than kept: eviction ran
        #expect(d.driver.tileStore.peakBytes <= budget + 16 * tileBytes)  // at most one band over, for a moment
    }
}

/// The image items of a frame's list (tiled layers draw their tiles as images): how many, and
/// how many show only part of their tile (a coarser tile standing in for finer ones).
struct TiledLayerItems {
    var count = 0
    var coarser = 0
    init(_ list: DrawList) {
        for item in list.items {
            guard case .image(let draw) = item.kind else { continue }
            count += 1
            if draw.geometry.source.width < 1 - 1e-9 || draw.geometry.source.height < 1 - 1e-9 { coarser += 1 }
        }
    }
}
