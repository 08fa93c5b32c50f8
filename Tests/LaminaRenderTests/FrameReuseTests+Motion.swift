import Testing
import LaminaAnimation
@testable import LaminaFrame
import LaminaGeometry
import LaminaTree
import TestSupport
@testable import LaminaRender
import LaminaModel

/// Items that only moved or faded (`FrameDelta.motionOnly`) get only the motion part of
/// their instances written (`RectInstance.writeMotion`) while their transform stays affine;
/// otherwise they are written whole, and the frame in full when they no longer draw the same
/// way. Frames equal, byte for byte, those with every instance written (`reusesWork` off).
extension FrameReuseTests {
    /// Hand-made patched lists of ten sharp rects (slot rings hold the list of two frames
    /// before): moves written as motion only, a color change whole, a transform turning
    /// non-affine (sharp to not sharp) and an opacity reaching 0 written in full.
    @Test func movedItemsWriteOnlyTheirMotionPart() throws {
        let renderer = try makeRenderer(width: 48, height: 16)
        let fresh = try makeRenderer(width: 48, height: 16)
        fresh.reusesWork = false
        var items = (0..<10).map { k in
            DrawItem(bounds: Rect(Double(k) * 4 + 1, 2, 3, 8), backgroundColor: Color(Double(k) / 10, 0.5, 1 - Double(k) / 10))
        }
        var lists: [DrawList] = []
        func add(base: UInt64?, whole: [Range<Int>] = [], motion: [Range<Int>] = []) {
            var list = DrawList(width: 48, height: 16, clearColor: .black, items: items)
            list.serial = UInt64(lists.count + 1)
            list.delta = base.map {
                FrameDelta(base: $0, rewritten: (whole + motion).sorted { $0.lowerBound < $1.lowerBound },
                               motionOnly: motion, hasMarkers: false)
            }
            lists.append(list)
        }
        var perspective = Transform3D.translation(1, 1)
        perspective.m14 = 0.002
        add(base: nil)                                                  // 1
        items[3].transform = .translation(0, 3)
        add(base: 1, motion: [3..<4])                                   // 2: slot 1 is empty
        items[7].transform = .translation(0.5, -2)
        add(base: 2, motion: [7..<8])                                   // 3: motion of 3 and 7
        items[3].backgroundColor = Color(1, 1, 1)
        items[5].transform = .rotation(0.2)
        add(base: 3, whole: [3..<4], motion: [5..<6])                   // 4: 3 whole, 5 and 7 motion
        items[5].transform = perspective
        add(base: 4, motion: [5..<6])                                   // 5: 5 no longer sharp: all
        items[0].opacity = 0.5
        add(base: 5, motion: [0..<1])                                   // 6: 5 still differs: all
        items[5].transform = perspective.concatenating(.translation(2, 0))
        add(base: 6, motion: [5..<6])                                   // 7: 0 motion, 5 whole (not affine)
        items[0].opacity = 0
        add(base: 7, motion: [0..<1])                                   // 8: 0 draws nothing: all (9)
        var written: [Int] = [], motion: [Int] = []
        for l in lists {
            let before = (renderer.instancesWritten, renderer.motionWritten)
            try renderer.render(l)
            try fresh.render(l)
            #expect(try renderer.readPixels() == (try fresh.readPixels()), "list \(l.serial)")
            written.append(renderer.instancesWritten - before.0)
            motion.append(renderer.motionWritten - before.1)
        }
        #expect(written == [10, 10, 0, 1, 10, 10, 1, 9])
        #expect(motion == [0, 0, 2, 2, 0, 0, 1, 0])
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }

    /// Random flat scenes under a perspective: every layer scales, moves and turns, a few about
    /// y (discretely through 0, so their transforms become non-affine and affine again); one fades to 0
    /// and back, three almost; random commits in between. Each frame equals the reference's.
    @Test(arguments: [UInt64(11), 12, 13])
    func motionOnlyFramesEqualFreshOnes(seed: UInt64) throws {
        var r = SeededRandom(seed: seed)
        let count = 24
        var model = ModelTree()
        var driver = FrameDriver(widthPoints: Double(Self.size), heightPoints: Double(Self.size), scale: 1,
                                 background: Color(0.2, 0.2, 0.25), targetFPS: 60)
        driver.tracksDamage = seed % 2 == 0
        func packet(_ ops: [LayerChange]) throws -> CommitPacket {
            try model.validate(Commit(client: 1, content: .operations(ops)), at: 0)
        }
        let container: UInt32 = 100
        var ops: [LayerChange] = [
            .create(container, .layer), .addSublayer(parent: 0, child: container),
            .set(container, keyPath: "bounds", value: .rect(Rect(0, 0, 96, 96))),
            .set(container, keyPath: "position", value: .point(Point(48, 48))),
            .set(container, keyPath: "sublayerTransform", value: .transform(.perspective(150))),
        ]
        for id in UInt32(1)...UInt32(count) {
            // Rects (radii, borders, analytic shadows) and gradients: shapes would take new meshes
            // as they scale (a full build each time).
            let gradient = r.below(3) == 0
            ops += [.create(id, gradient ? .gradient : .layer), .addSublayer(parent: container, child: id)]
            ops.append(.set(id, keyPath: "bounds", value: .rect(Rect(0, 0, r.double(6...40), r.double(6...40)))))
            ops.append(.set(id, keyPath: "position", value: .point(Point(r.double(0...96), r.double(0...96)))))
            ops.append(.set(id, keyPath: "backgroundColor", value: .color(DamageRenderTests.color(&r))))
            if r.below(3) == 0 { ops.append(.set(id, keyPath: "cornerRadius", value: .number(r.double(0...10)))) }
            if gradient {
                ops.append(.set(id, keyPath: "colors", value: .colors([DamageRenderTests.color(&r), DamageRenderTests.color(&r)])))
            } else if r.below(3) == 0 {
                ops.append(.set(id, keyPath: "borderWidth", value: .number(r.double(1...4))))
                ops.append(.set(id, keyPath: "borderColor", value: .color(DamageRenderTests.color(&r))))
            } else if r.below(2) == 0 {
                ops.append(.set(id, keyPath: "shadowOpacity", value: .number(r.double(0.3...1))))
                ops.append(.set(id, keyPath: "shadowRadius", value: .number(r.double(0...5))))
            }
            if id % 8 == 5 {
                // A few turn about y (a frame where one turns or stops writes every instance, as
                // a sharp rect is no longer sharp, or becomes sharp); the others about z.
                let turn = r.double(0.2...0.7)
                ops.append(.addAnimation(id, key: "turn", animation: .keyframe(KeyframeAnimation(
                    keyPath: "transform.rotation.y", values: [.double(0), .double(turn), .double(0), .double(-turn)],
                    calculationMode: .discrete,
                    timing: AnimationTiming(duration: r.double(2...3), repeatCount: 100)))))
            } else {
                ops.append(.addAnimation(id, key: "spin", animation: .basic(BasicAnimation(
                    keyPath: "transform.rotation.z", from: .double(0), to: .double(r.double(-3...3)),
                    timing: AnimationTiming(duration: r.double(1...3), repeatCount: 100)))))
            }
            ops.append(.addAnimation(id, key: "grow", animation: .basic(BasicAnimation(
                keyPath: "transform.scale", from: .double(r.double(0.4...1)), to: .double(r.double(1...2.5)),
                timing: AnimationTiming(duration: r.double(0.4...1), repeatCount: 100, autoreverses: true)))))
            ops.append(.addAnimation(id, key: "slide", animation: .basic(BasicAnimation(
                keyPath: "position.x", from: .double(r.double(0...40)), to: .double(r.double(50...90)),
                timing: AnimationTiming(duration: 3)))))
            if id <= 4 {
                // Layer 1 fades to 0 once (culled: the builder then builds in full for a while),
                // three others almost.
                let values: [AnimatableValue] = id == 1 ? [.double(1), .double(0), .double(1)]
                    : [.double(1), .double(0.05), .double(0.6)]
                ops.append(.addAnimation(id, key: "fade", animation: .keyframe(KeyframeAnimation(
                    keyPath: "opacity", values: values, calculationMode: .discrete,
                    timing: AnimationTiming(duration: id == 1 ? 6 : r.double(1.2...1.8), repeatCount: 100)))))
            }
        }
        let first = [try model.validate(Commit(client: 1, content: .connect), at: 0), try packet(ops)]
        let renderer = try Self.compare(frames: 45, driver: &driver, first: first) { frame in
            frame % 9 == 8 ? [try packet(Self.flatChanges(&r, count: count))] : []
        }
        #expect(renderer.motionWritten > 0, "no instance had its motion part alone written")
        #expect(renderer.framesPatched > 0, "no frame patched its ring")
    }
}
