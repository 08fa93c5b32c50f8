import Foundation
import Testing
import LaminaAnimation
@testable import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaTree
import TestSupport
@testable import LaminaRender
import LaminaModel

/// Upload and record only what changed (issue 11, item 5): a frame slot submits its recorded
/// passes again when the frame draws the same sequence, and writes only the instances of the
/// items changed since the list its ring holds. Frames made that way equal, byte for byte,
/// the same frames with every instance written and every frame recorded (`reusesWork` off);
/// the renderer's counters show which path each frame took.
@Suite("Reused recordings and patched instances")
struct FrameReuseTests {
    static let size = 96

    static func solid(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Image {
        Image(width: 4, height: 4, premultipliedPixels: Array((0..<16).map { _ in [r, g, b, 255] }.joined()))
    }

    /// Renders the driver's frames through a renderer that reuses work and one that does not
    /// (the reference), expecting equal pixels every frame; `step(frame)` gives the packets
    /// of the next frame.
    /// Before each frame in `releasing`, the reusing renderer lets go as an idle render loop
    /// does: every slot's ring and the driver's frame memory.
    static func compare(frames: Int, driver: inout FrameDriver, first: [CommitPacket], releasing: Set<Int> = [],
                        step: (Int) throws -> [CommitPacket]) throws -> OffscreenRenderer {
        let reusing = try makeRenderer(width: size, height: size)
        let fresh = try makeRenderer(width: size, height: size)
        fresh.reusesWork = false
        var pending = first
        for frame in 0..<frames {
            let f = driver.frame(applying: pending, at: Double(frame) * 0.07)
            if releasing.contains(frame) {
                try reusing.releaseIdleBuffers(all: true)
                try reusing.releaseDriverFrameMemory()
            }
            try reusing.render(f.drawList)
            try fresh.render(f.drawList)
            let a = try reusing.readPixels(), b = try fresh.readPixels()
            let differing = zip(a, b).filter { $0 != $1 }.count
            #expect(differing == 0, "frame \(frame): \(differing) bytes differ")
            pending = try step(frame)
        }
        #expect(reusing.validationMessages.isEmpty, "\(reusing.validationMessages)")
        #expect(fresh.framesReused == 0 && fresh.framesPatched == 0)
        return reusing
    }

    /// A random scene with no groups or blurred shadows (whose lists are patched): `count`
    /// sibling layers — rects with radii, borders and analytic shadows, gradients, shapes.
    static func flatScene(_ r: inout SeededRandom, count: Int) -> [LayerChange] {
        var ops: [LayerChange] = []
        for id in UInt32(1)...UInt32(count) {
            let kind: LayerKind = [.layer, .layer, .shape, .gradient][r.below(4)]
            ops += [.create(id, kind), .addSublayer(parent: 0, child: id)]
            let w = r.double(6...40), h = r.double(6...40)
            ops.append(.set(id, keyPath: "bounds", value: .rect(Rect(0, 0, w, h))))
            ops.append(.set(id, keyPath: "position", value: .point(Point(r.double(0...96), r.double(0...96)))))
            ops.append(.set(id, keyPath: "backgroundColor", value: .color(DamageRenderTests.color(&r))))
            if r.below(3) == 0 { ops.append(.set(id, keyPath: "cornerRadius", value: .number(r.double(0...10)))) }
            if r.below(4) == 0 {
                ops.append(.set(id, keyPath: "borderWidth", value: .number(r.double(1...4))))
                ops.append(.set(id, keyPath: "borderColor", value: .color(DamageRenderTests.color(&r))))
            }
            switch kind {
            case .shape:
                ops.append(.set(id, keyPath: "path", value: .path(.ellipse(in: Rect(0, 0, w, h)))))
                ops.append(.set(id, keyPath: "fillColor", value: .color(DamageRenderTests.color(&r))))
            case .gradient:
                ops.append(.set(id, keyPath: "colors", value: .colors([DamageRenderTests.color(&r), DamageRenderTests.color(&r)])))
            default:
                // A shadow of a rect without a border: the analytic kind (no blurred-shadow pass).
                if r.below(3) == 0 {
                    ops.append(.set(id, keyPath: "borderWidth", value: .number(0)))
                    ops.append(.set(id, keyPath: "shadowOpacity", value: .number(r.double(0.3...1))))
                    ops.append(.set(id, keyPath: "shadowRadius", value: .number(r.double(0...5))))
                }
            }
        }
        return ops
    }

    /// Changes that keep a flat scene flat: moves, colors, opacities and spins.
    static func flatChanges(_ r: inout SeededRandom, count: Int) -> [LayerChange] {
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: r.below(2) == 0))]
        for _ in 0..<r.int(1..<3) {
            let id = UInt32(r.int(1..<(count + 1)))
            switch r.below(4) {
            case 0: ops.append(.set(id, keyPath: "position", value: .point(Point(r.double(0...96), r.double(0...96)))))
            case 1: ops.append(.set(id, keyPath: "opacity", value: .number(r.double(0.2...1))))
            case 2: ops.append(.set(id, keyPath: "backgroundColor", value: .color(DamageRenderTests.color(&r))))
            default:
                ops.append(.addAnimation(id, key: "spin", animation: .basic(BasicAnimation(
                    keyPath: "transform.rotation.z", from: .double(0), to: .double(r.double(-3...3)),
                    timing: AnimationTiming(duration: r.double(0.2...1))))))
            }
        }
        return ops
    }

    /// Random animated scenes (shadows, clips, groups, gradients, shapes, images appearing),
    /// random commits between frames, with and without damage-limited frames.
    @Test(arguments: [(UInt64(1), false), (2, false), (3, true), (4, true), (5, false), (7, true)])
    func reusedAndPatchedFramesEqualFreshOnes(seed: UInt64, damage: Bool) throws {
        var r = SeededRandom(seed: seed)
        let count = 24
        var model = ModelTree()
        var driver = FrameDriver(widthPoints: Double(Self.size), heightPoints: Double(Self.size), scale: 1,
                                 background: Color(0.2, 0.2, 0.25), targetFPS: 60)
        driver.tracksDamage = damage
        // The patch path under test: the automatic raster cache, which takes the scene's stable
        // shadowed layers and so makes every frame a full build, is off.
        driver.rasterizesAutomatically = false
        driver.setImage("red", Self.solid(255, 0, 0))
        driver.setImage("green", Self.solid(0, 200, 0))
        func packet(_ ops: [LayerChange]) throws -> CommitPacket {
            try model.validate(Commit(client: 1, content: .operations(ops)), at: 0)
        }
        var first = [try model.validate(Commit(client: 1, content: .connect), at: 0),
                     try packet(seed % 2 == 1 ? Self.flatScene(&r, count: count) : DamageRenderTests.scene(&r, count: count))]
        // Several layers animate all along, so that most frames are patches of the last.
        var animations: [LayerChange] = []
        for id in UInt32(1)...UInt32(6) {
            animations.append(.addAnimation(id, key: "slide", animation: .basic(BasicAnimation(
                keyPath: "position.x", from: .double(r.double(0...40)), to: .double(r.double(50...90)),
                timing: AnimationTiming(duration: 3)))))
        }
        first.append(try packet(animations))
        // Seeds 3 and up: twice, everything a long idle spell lets go (rings, driver memory).
        let renderer = try Self.compare(frames: 30, driver: &driver, first: first,
                                        releasing: seed >= 3 ? [10, 21] : []) { frame in
            var ops: [LayerChange] = []
            if frame == 8 { ops.append(.set(7, keyPath: "contents", value: .string("red"))) }
            if frame == 15 { ops.append(.set(9, keyPath: "contents", value: .string("green"))) }
            if frame % 7 == 6 {
                ops += seed % 2 == 1 ? Self.flatChanges(&r, count: count) : DamageRenderTests.changes(&r, count: count, at: frame)
            }
            return ops.isEmpty ? [] : [try packet(ops)]
        }
        if seed % 2 == 1 { #expect(renderer.framesPatched > 0, "no frame patched its ring") }
        #expect(renderer.framesRecorded >= 2 && renderer.framesRecorded + renderer.framesReused == 30)
        if !damage && seed % 2 == 1 { #expect(renderer.framesReused > 0, "no frame reused its recording") }
    }

    /// `count` 10 × 10 squares in a row, layer 1 sliding (the others still).
    static func row(_ model: inout ModelTree, count: Int) throws -> [CommitPacket] {
        var ops: [LayerChange] = []
        for id in UInt32(1)...UInt32(count) {
            ops += [.create(id, .layer), .addSublayer(parent: 0, child: id),
                    .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, 10, 10))),
                    .set(id, keyPath: "position", value: .point(Point(Double(id % 8) * 11 + 6, Double(id / 8) * 11 + 6))),
                    .set(id, keyPath: "backgroundColor", value: .color(Color(Double(id) / Double(count), 0.5, 0.2)))]
        }
        ops.append(.addAnimation(1, key: "slide", animation: .basic(BasicAnimation(
            keyPath: "position.y", from: .double(10), to: .double(80), timing: AnimationTiming(duration: 5)))))
        return [try model.validate(Commit(client: 1, content: .connect), at: 0),
                try model.validate(Commit(client: 1, content: .operations(ops)), at: 0)]
    }

    /// One layer of 40 moves: once both slots hold a list of the scene, each frame writes the
    /// motion part of that layer's one instance and submits its recorded passes again (the draws are the same);
    /// a commit that adds a layer writes every instance and records.
    @Test func oneMovingLayerWritesOneInstanceAndRecordsNothing() throws {
        var model = ModelTree()
        var driver = FrameDriver(widthPoints: Double(Self.size), heightPoints: Double(Self.size), scale: 1,
                                 background: .black, targetFPS: 60)
        driver.tracksDamage = false
        let first = try Self.row(&model, count: 40)
        let renderer = try Self.compare(frames: 14, driver: &driver, first: first) { frame in
            guard frame == 9 else { return [] }
            return [try model.validate(Commit(client: 1, content: .operations([
                .create(41, .layer), .addSublayer(parent: 0, child: 41),
                .set(41, keyPath: "bounds", value: .rect(Rect(0, 0, 10, 10))),
                .set(41, keyPath: "backgroundColor", value: .color(Color(1, 1, 1)))])), at: 0)]
        }
        // Frames 0 and 1 fill both slots (40 instances each, recorded); frames 2…9 patch
        // (the motion part of 1 instance each, reused); frame 10 has 41 layers (full, recorded)
        // and frame 11 fills the other slot; frames 12 and 13 patch again. (Before session 5
        // the moving layer's instance was written whole: 8 + 2 more whole instances.)
        #expect(renderer.instancesWritten == 40 + 40 + 41 + 41)
        #expect(renderer.motionWritten == 8 * 1 + 2 * 1)
        #expect(renderer.framesPatched == 8 + 2)
        #expect(renderer.framesRecorded == 4)
        #expect(renderer.framesReused == 10)
    }

    /// Patched lists by hand: a slot's ring holds the list of two frames before, so a frame
    /// writes the items changed by its own patch and by the previous list's (here item 3 in
    /// the second list, item 7 in the third); a list patched from a list the renderer did
    /// not see writes everything.
    @Test func theChangesOfEveryListSinceTheSlotsAreWritten() throws {
        let renderer = try makeRenderer(width: 48, height: 16)
        let fresh = try makeRenderer(width: 48, height: 16)
        fresh.reusesWork = false
        var colors = (0..<10).map { k in Color(Double(k) / 10, 0.5, 1 - Double(k) / 10) }
        func list(serial: UInt64, base: UInt64?, changed: [Range<Int>]) -> DrawList {
            var list = DrawList(width: 48, height: 16, clearColor: .black, items: colors.enumerated().map { k, c in
                DrawItem(bounds: Rect(Double(k) * 4 + 1, 2, 3, 8), backgroundColor: c)
            })
            list.serial = serial
            list.delta = base.map { FrameDelta(base: $0, rewritten: changed, hasMarkers: false) }
            return list
        }
        var lists = [list(serial: 1, base: nil, changed: [])]
        colors[3] = Color(1, 1, 1)
        lists.append(list(serial: 2, base: 1, changed: [3..<4]))
        colors[7] = Color(1, 0, 0)
        lists.append(list(serial: 3, base: 2, changed: [7..<8]))
        colors[0] = Color(0, 1, 0); colors[9] = Color(0, 0, 0.5)
        lists.append(list(serial: 4, base: 3, changed: [0..<1, 9..<10]))
        // Base 10 was never drawn: every instance.
        colors[5] = Color(0.5, 0.5, 0.5)
        lists.append(list(serial: 11, base: 10, changed: [5..<6]))
        var written: [Int] = []
        for l in lists {
            let before = renderer.instancesWritten
            try renderer.render(l)
            try fresh.render(l)
            #expect(try renderer.readPixels() == (try fresh.readPixels()), "list \(l.serial)")
            written.append(renderer.instancesWritten - before)
        }
        #expect(written == [10, 10, 2, 3, 10])
        #expect(renderer.framesPatched == 2)
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }

    /// Hand-made lists (no patches): the same draws with other values reuse the recording
    /// (every instance written); another draw sequence, another damage rect, a new size or
    /// a new image records again.
    @Test func theRecordingFollowsTheDrawSequence() throws {
        let renderer = try makeRenderer(width: 32, height: 32)
        func list(_ colors: [Color], damage: PixelRect? = nil) -> DrawList {
            var list = DrawList(width: 32, height: 32, clearColor: .black, items: colors.enumerated().map { k, c in
                DrawItem(bounds: Rect(Double(k) * 4, 2, 4, 4), backgroundColor: c)
            })
            list.serial = 0
            return list
        }
        for k in 0..<4 { try renderer.render(list([Color(1, 0, 0), Color(0, Double(k) / 4, 1)])) }
        #expect(renderer.framesRecorded == 2 && renderer.framesReused == 2)
        #expect(renderer.instancesWritten == 4 * 2)
        // A third item: another sequence (the run is longer), recorded in both slots.
        for _ in 0..<2 { try renderer.render(list([Color(1, 0, 0), Color(0, 1, 0), Color(0, 0, 1)])) }
        #expect(renderer.framesRecorded == 4 && renderer.framesReused == 2)
        // A rounded rect: another variant.
        var rounded = list([Color(1, 0, 0), Color(0, 1, 0), Color(0, 0, 1)])
        rounded.items[1].cornerRadii = CornerRadii(2)
        for _ in 0..<3 { try renderer.render(rounded) }
        #expect(renderer.framesRecorded == 6 && renderer.framesReused == 3)
        let pixels = try renderer.readPixels()
        let fresh = try renderImage(rounded).pixels
        #expect(pixels == fresh)
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }

    /// The slots' rings and clip buffers follow the need: a big list then small ones shrink
    /// them to the small need with an eighth's room; going idle frees the other slot's.
    /// (Session 6: the ring is sized in bytes, each of these sharp rects taking six vec4s —
    /// motion, bounds, color, params — rather than the whole 224-byte `RectInstance`.)
    @Test func ringsFollowTheNeedAndIdleSlotsLetGo() throws {
        let renderer = try makeRenderer(width: 32, height: 32)
        func list(_ n: Int) -> DrawList {
            DrawList(width: 32, height: 32, clearColor: .black, items: (0..<n).map { k in
                DrawItem(bounds: Rect(Double(k % 30), Double(k % 29), 2, 2), backgroundColor: Color(1, 0, 0, 0.01))
            })
        }
        let stride = 6 * 16, clipStride = MemoryLayout<ClipRecord>.stride
        let clipBytes = 2 * FrameSlot.room(for: 0) * clipStride
        /// An eighth more than `n` instances' vec4s, and 64 vec4s.
        func ring(_ n: Int) -> Int { (n * stride / 16 + n * stride / 16 / 8 + 64) * 16 }
        for _ in 0..<2 { try renderer.render(list(4000)) }
        #expect(renderer.slotBufferBytes == 2 * ring(4000) + clipBytes)
        // The first frame of each slot sizes for its last count (4000 instances); the next shrinks.
        for _ in 0..<4 { try renderer.render(list(100)) }
        #expect(renderer.slotBufferBytes == 2 * ring(100) + clipBytes)
        // Within the slack: kept.
        for _ in 0..<2 { try renderer.render(list(110)) }
        #expect(renderer.slotBufferBytes == 2 * ring(100) + clipBytes)
        try renderer.releaseIdleBuffers()
        #expect(renderer.slotBufferBytes == (ring(100) + clipBytes / 2))
        try renderer.render(list(110))
        let pixels = try renderer.readPixels()
        #expect(pixels == (try renderImage(list(110)).pixels))
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }
}
