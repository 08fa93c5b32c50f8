import LaminaAnimation
import LaminaGeometry
import LaminaImage
import LaminaTree
import Testing
import TestSupport
@testable import LaminaFrame
import LaminaModel

/// The retained draw list (issue 11, item 5): a build that patches the previous list in place
/// must give the list a full build of the same presentation tree gives, item for item — on
/// random trees (nesting, groups, clips, analytic and blurred shadows, shadow paths, shapes,
/// gradients, images, text, zPosition ties) under random animations (geometry, opacity across
/// 1, colors, zPosition reorders, scale changes that move shapes to other mesh buckets), over
/// many frames, with commits in between. The reference is the same builder's state after
/// the frame (so the same mesh ids), copied and made to build in full.
@Suite struct RetainedListTests {
    static let image = Image(width: 4, height: 4, premultipliedPixels: (0..<64).map { UInt8(($0 * 37) % 256) })

    /// Random layers under client 1's container, and animations on some of them.
    static func scene(_ rng: inout SeededRandom, layers: Int, text: Bool) -> (setup: [LayerChange],
                                                                               animations: [LayerChange]) {
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
        var animations: [LayerChange] = []
        let paths: [Path] = [.ellipse(in: Rect(2, 2, 30, 20)), .roundedRect(Rect(0, 0, 28, 18), radius: 5),
                             { var p = Path(); p.addPolygon([Point(0, 0), Point(30, 4), Point(12, 24)]); return p }()]
        func color(_ alpha: Double) -> PropertyValue {
            .color(Color(rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0, 1), alpha))
        }
        for i in 1...layers {
            let id = UInt32(i)
            let roll = rng.below(10)
            let kind: LayerKind = roll < 2 ? .shape : roll < 3 ? .gradient : (text && roll == 3) ? .text : .layer
            ops.append(.create(id, kind))
            // Parents: the container or an earlier layer (trees a few levels deep).
            let parent = i > 1 && rng.bool(0.6) ? UInt32(rng.int(max(1, i - 8)..<i)) : 0
            ops.append(.addSublayer(parent: parent, child: id))
            ops.append(.set(id, keyPath: "bounds", value: .rect(Rect(0, 0, rng.uniform(8, 60), rng.uniform(8, 50)))))
            ops.append(.set(id, keyPath: "position", value: .point(Point(rng.uniform(0, 160), rng.uniform(0, 120)))))
            if rng.bool(0.7) { ops.append(.set(id, keyPath: "backgroundColor", value: color(rng.bool(0.7) ? 1 : 0.5))) }
            if rng.bool(0.3) { ops.append(.set(id, keyPath: "cornerRadius", value: .number(rng.uniform(0, 10)))) }
            if rng.bool(0.3) {
                ops.append(.set(id, keyPath: "borderWidth", value: .number(rng.uniform(0.5, 3))))
                ops.append(.set(id, keyPath: "borderColor", value: color(1)))
            }
            if rng.bool(0.2) { ops.append(.set(id, keyPath: "masksToBounds", value: .bool(true))) }
            if rng.bool(0.25) { ops.append(.set(id, keyPath: "opacity", value: .number(rng.uniform(0.3, 0.95)))) }
            if rng.bool(0.2) { ops.append(.set(id, keyPath: "allowsGroupOpacity", value: .bool(false))) }
            if rng.bool(0.05) { ops.append(.set(id, keyPath: "hidden", value: .bool(true))) }
            if rng.bool(0.3) { ops.append(.set(id, keyPath: "zPosition", value: .number(Double(rng.below(3))))) }
            if rng.bool(0.3) {
                ops.append(.set(id, keyPath: "shadowOpacity", value: .number(rng.uniform(0.3, 1))))
                ops.append(.set(id, keyPath: "shadowRadius", value: .number(rng.uniform(0, 5))))
                ops.append(.set(id, keyPath: "shadowOffset", value: .size(Size(2, 3))))
                if rng.bool(0.3) { ops.append(.set(id, keyPath: "shadowPath", value: .path(paths[rng.below(3)]))) }
            }
            if kind == .layer, rng.bool(0.1) {
                ops.append(.set(id, keyPath: "contents", value: .string("img")))
                ops.append(.set(id, keyPath: "contentsGravity", value: .string("resizeAspectFill")))
            }
            switch kind {
            case .shape:
                ops.append(.set(id, keyPath: "path", value: .path(paths[rng.below(3)])))
                ops.append(.set(id, keyPath: "fillColor", value: color(1)))
                if rng.bool(0.5) {
                    ops.append(.set(id, keyPath: "strokeColor", value: color(1)))
                    ops.append(.set(id, keyPath: "lineWidth", value: .number(rng.uniform(0.5, 3))))
                }
            case .gradient:
                ops.append(.set(id, keyPath: "colors", value: .colors([Color(1, 0, 0), Color(0, 0, 1, rng.bool(0.5) ? 1 : 0.5)])))
            case .text:
                ops.append(.set(id, keyPath: "string", value: .text(StyledText("Ab \(i)"))))
                ops.append(.set(id, keyPath: "fontSize", value: .number(10)))
            default: break
            }
            // Animations on about half the layers.
            guard rng.bool(0.5) else { continue }
            var timing = AnimationTiming(duration: rng.uniform(0.3, 1.5))
            timing.repeatCount = .infinity
            timing.autoreverses = rng.bool(0.5)
            // Mostly values; a quarter of them change what a layer draws (groups, buckets, order).
            let pick = rng.bool(0.25) ? [2, 4, 5][rng.below(3)] : [0, 1, 3, 6, 7, 8][rng.below(6)]
            let (keyPath, from, to): (String, AnimatableValue, AnimatableValue) = switch pick {
            case 0: ("position", .point(Point(rng.uniform(0, 160), rng.uniform(0, 120))),
                     .point(Point(rng.uniform(0, 160), rng.uniform(0, 120))))
            case 1: ("transform.rotation.z", .double(0), .double(rng.uniform(-3, 3)))
            case 2: ("opacity", .double(rng.uniform(0.2, 1)), .double(1))   // groups come and go at 1
            case 3: ("backgroundColor", .color(Color(1, 0, 0)), .color(Color(0, 1, 0, 0.5)))
            case 4: ("transform.scale", .double(1), .double(rng.uniform(0.3, 3)))   // other mesh buckets
            case 5: ("zPosition", .double(0), .double(3))                          // reorders siblings
            case 6: ("bounds", .rect(Rect(0, 0, 10, 10)), .rect(Rect(0, 0, 50, 30)))
            case 7: ("cornerRadius", .double(0), .double(12))
            default: ("shadowOpacity", .double(0), .double(1))
            }
            animations.append(.addAnimation(id, key: "a", animation: .basic(BasicAnimation(
                keyPath: keyPath, from: from, to: to, timing: timing))))
            if rng.bool(0.3) {
                animations.append(.addAnimation(id, key: "b", animation: .basic(BasicAnimation(
                    keyPath: "position.x", from: .double(rng.uniform(0, 160)), to: .double(rng.uniform(0, 160)),
                    timing: timing))))
            }
        }
        return (ops, animations)
    }

    /// `aAtlas` and `bAtlas`: the lists' shape atlas bases (a shape atlas item of either names
    /// its own list's base; two builds from the same state make equal but distinct images).
    static func same(_ a: DrawItem, _ b: DrawItem, aAtlas: Image? = nil, bAtlas: Image? = nil) -> Bool {
        guard a.transform == b.transform, a.bounds == b.bounds, a.backgroundColor == b.backgroundColor,
              a.opacity == b.opacity, a.cornerRadii == b.cornerRadii, a.borderWidth == b.borderWidth,
              a.borderColor == b.borderColor, a.clip == b.clip else { return false }
        switch (a.kind, b.kind) {
        case (.rect, .rect): return true
        case (.shadow(let s), .shadow(let t)): return s == t
        case (.gradient(let f), .gradient(let g)): return f == g
        case (.mesh(let m), .mesh(let n)):
            return m.id == n.id && m.color == n.color && m.trimStart == n.trimStart && m.trimEnd == n.trimEnd
                && m.mesh.bounds == n.mesh.bounds
        case (.image(let x), .image(let y)):
            // By id (each image has its own: `Image.id`); an atlas piece by its atlas' base.
            let sameImage = x.image.id == y.image.id
                || (x.mode != .color && aAtlas != nil && x.image.id == aAtlas?.id && y.image.id == bAtlas?.id)
            return sameImage && x.geometry == y.geometry && x.minification == y.minification
                && x.magnification == y.magnification && x.mode == y.mode && x.sharpEdges == y.sharpEdges
        case (.group(let o, let c), .group(let p, let d)): return o == p && c == d
        case (.shadowGroup(let c1, let s, let n), .shadowGroup(let c2, let t, let m)): return c1 == c2 && s == t && n == m
        default: return false
        }
    }

    /// Runs `frames` frames of a seeded scene; returns how many builds patched.
    /// `atlas`: shapes drawn from the shape atlas once they hold (the reference build then
    /// starts from a copy of the atlas as it was before the frame).
    static func run(seed: UInt64, layers: Int, frames: Int, text: Bool, commitEvery: Int,
                    atlas: Bool = false) throws -> (patched: Int, builds: Int, atlasItems: Int, moved: Int) {
        var rng = SeededRandom(seed: seed)
        var tree = LayerTree()
        try tree.apply(Commit(client: 1, content: .connect))
        let (setup, animations) = scene(&rng, layers: layers, text: text)
        try tree.apply(Commit(client: 1, content: .operations(setup)))
        try tree.apply(Commit(client: 1, content: .operations(animations)))
        var builder = DrawListBuilder(widthPoints: 160, heightPoints: 120, scale: 1.5, background: Color(0.9, 0.9, 0.9))
        // Shapes from their meshes: a shape atlas entry depends on the frames before (a kept
        // visit keeps the items it had, a full build may draw the shape from the atlas).
        builder.usesShapeAtlas = atlas
        builder.images = ["img": image]
        builder.patcher.backoffAfterFailure = 0   // try every frame (the test wants many patches)
        var snapshots = SnapshotMaker()
        var patched = 0, atlasItems = 0, moved = 0
        var previous: DrawList?
        for frame in 0..<frames {
            let t = Double(frame) / 30
            if commitEvery > 0, frame % commitEvery == commitEvery - 1 {
                // A model change between frames: a property, or a layer moved to another parent.
                let id = UInt32(1 + rng.below(layers))
                let op: LayerChange = rng.bool(0.5)
                    ? .set(id, keyPath: "backgroundColor", value: .color(Color(0, 0, rng.uniform(0, 1))))
                    : .addSublayer(parent: 0, child: id)
                try tree.apply(Commit(client: 1, content: .operations([
                    .setTransaction(TransactionSettings(disableActions: true)), op])), at: t)
            }
            tree.advance(to: t)
            let snapshot = snapshots.make(from: tree, at: t)
            let atlasBefore = builder.shapeAtlas.copy()
            let list = builder.build(snapshot.tree)
            if builder.lastBuildPatched {
                patched += 1
                moved += builder.patcher.moved
                atlasItems += list.items.filter { if case .image(let d) = $0.kind, d.mode != .color { true } else { false } }.count
            }
            #expect((list.delta != nil) == builder.lastBuildPatched)
            if let previous { checkDamage(previous, list, "seed \(seed) frame \(frame)") }
            previous = list
            var reference = builder
            reference.shapeAtlas = atlasBefore
            reference.patchesInPlace = false
            let expected = reference.build(snapshot.tree)
            #expect(!reference.lastBuildPatched)
            expectSame(list, expected, "seed \(seed) frame \(frame) (patched: \(builder.lastBuildPatched))")
        }
        return (patched, frames, atlasItems, moved)
    }

    /// Records an issue unless `list` equals `expected` (a full build of the same tree) item
    /// for item (`same`, atlas items by entry), clip for clip and in its plan.
    static func expectSame(_ list: DrawList, _ expected: DrawList, _ what: String) {
        #expect(list.items.count == expected.items.count, "\(what): item count")
        #expect(list.clips.count == expected.clips.count, "\(what): clip count")
        if list.plan != expected.plan { Issue.record("\(what): the plans differ") }
        guard list.items.count == expected.items.count, list.clips.count == expected.clips.count else { return }
        for k in list.items.indices where !same(list.items[k], expected.items[k], aAtlas: list.shapeAtlas?.base,
                                                bAtlas: expected.shapeAtlas?.base) {
            Issue.record("\(what): item \(k) differs: \(list.items[k].kind) \(list.items[k].transform.m41) vs \(expected.items[k].kind) \(expected.items[k].transform.m41)")
            break
        }
        for k in list.clips.indices {
            let (a, b) = (list.clips[k], expected.clips[k])
            if a.transform != b.transform || a.rect != b.rect || a.radii != b.radii || a.parent != b.parent {
                Issue.record("\(what): clip \(k) differs")
                break
            }
        }
    }

    /// The damage of a patched list from its changed ranges equals the full comparison's.
    static func checkDamage(_ previous: DrawList, _ list: DrawList, _ what: String) {
        var stripped = list
        stripped.items = list.items   // a list changed by hand has no patch ranges
        #expect(stripped.delta == nil)
        var fast = DamageTracker(), full = DamageTracker()
        #expect(fast.damage(from: previous, to: list) == full.damage(from: previous, to: stripped), "\(what): damage")
    }

    @Test(arguments: 1...20)
    func patchedListsEqualFullBuilds(seed: Int) throws {
        let (patched, builds, _, moved) = try Self.run(seed: UInt64(seed), layers: 60, frames: 60, text: false,
                                                       commitEvery: 20)
        // Patches happen: a frame after a commit or a failed patch builds in full, but most patch.
        #expect(patched > 0, "seed \(seed): \(patched) of \(builds) builds patched")
        #expect(moved > 0, "seed \(seed): no leaf was moved in place")
    }

    /// The same with shapes drawn from the shape atlas: a patch draws a shape from the entry it
    /// has (a moved one too), and a build where a shape would get an entry (or one is replaced
    /// at another scale) is a full one. Some scenes never patch (shapes sharing meshes at
    /// scales that keep changing replace their entry every frame); most do.
    @Test func patchedListsWithTheShapeAtlasEqualFullBuilds() throws {
        var patched = 0, atlasItems = 0, scenes = 0
        for seed in 201...210 {
            let run = try Self.run(seed: UInt64(seed), layers: 60, frames: 60, text: false, commitEvery: 20, atlas: true)
            patched += run.patched
            atlasItems += run.atlasItems
            if run.patched > 0 { scenes += 1 }
        }
        #expect(scenes >= 5, "\(scenes) of 10 scenes patched")
        #expect(patched > 100 && atlasItems > 0, "\(patched) patches, \(atlasItems) atlas items in them")
    }

    @Test(arguments: 1...3)
    func patchedListsWithTextEqualFullBuilds(seed: Int) throws {
        _ = try Self.run(seed: UInt64(100 + seed), layers: 40, frames: 30, text: true, commitEvery: 0)
    }

    /// Before sleeping the records go (`releaseRetainedRecords`): the next build is a full one
    /// and equals a full build; the one after patches again.
    @Test func releasedRecordsMakeTheNextBuildFull() throws {
        var tree = LayerTree()
        try tree.apply(Commit(client: 1, content: .connect))
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
        for i in 1...20 {
            ops += [.create(UInt32(i), .layer), .addSublayer(parent: 0, child: UInt32(i)),
                    .set(UInt32(i), keyPath: "bounds", value: .rect(Rect(0, 0, 10, 10))),
                    .set(UInt32(i), keyPath: "backgroundColor", value: .color(Color(0, 1, 0)))]
        }
        try tree.apply(Commit(client: 1, content: .operations(ops)))
        var timing = AnimationTiming(duration: 1)
        timing.repeatCount = .infinity
        try tree.apply(Commit(client: 1, content: .operations([.addAnimation(3, key: "m", animation: .basic(BasicAnimation(
            keyPath: "position.x", from: .double(0), to: .double(100), timing: timing)))])))
        var builder = DrawListBuilder(widthPoints: 100, heightPoints: 100, scale: 1, background: .black)
        var patched: [Bool] = []
        for frame in 0..<5 {
            tree.advance(to: Double(frame) / 10)
            let presentation = tree.presentation(at: Double(frame) / 10)
            if frame == 2 {
                builder.releaseRetainedRecords()
                #expect(builder.patcher.records.isEmpty && builder.patcher.dirty.isEmpty)
            }
            let list = builder.build(presentation)
            patched.append(builder.lastBuildPatched)
            var reference = builder
            reference.patchesInPlace = false
            let expected = reference.build(presentation)
            #expect(list.items.count == expected.items.count)
            #expect(zip(list.items, expected.items).allSatisfy { Self.same($0, $1) }, "frame \(frame)")
        }
        #expect(patched == [false, true, false, true, true])
    }

    /// Two copies of one tree changed apart never pass for the same model (versions are unique
    /// in the process): the second build is a full one.
    @Test func copiesChangedApartAreBuiltInFull() throws {
        var a = LayerTree()
        try a.apply(Commit(client: 1, content: .connect))
        try a.apply(Commit(client: 1, content: .operations([
            .create(1, .layer), .addSublayer(parent: 0, child: 1),
            .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 20, 20))),
            .set(1, keyPath: "backgroundColor", value: .color(Color(1, 0, 0)))])))
        var b = a
        let set = { (x: Double) in
            Commit(client: 1, content: .operations([.setTransaction(TransactionSettings(disableActions: true)),
                                                    .set(1, keyPath: "position", value: .point(Point(x, 10)))]))
        }
        try a.apply(set(30))
        try b.apply(set(60))
        #expect(a.lineage == b.lineage && a.version != b.version)
        var builder = DrawListBuilder(widthPoints: 100, heightPoints: 100, scale: 1, background: .black)
        let first = builder.build(a.presentation(at: 0))
        let second = builder.build(b.presentation(at: 0))
        #expect(!builder.lastBuildPatched)
        #expect(first.items.first?.transform.m41 == 20 && second.items.first?.transform.m41 == 50)
        // The same model again: a patch.
        _ = builder.build(b.presentation(at: 0))
        #expect(builder.lastBuildPatched)
    }

    /// A scene where only values animate (no text, no scale, no opacity across 1, no reorder):
    /// every build after the first patches.
    /// With the shape atlas too (the second build may be full: shapes getting their entries);
    /// the moving leaves are moved in place.
    @Test(arguments: [false, true])
    func valueAnimationsPatchEveryFrame(atlas: Bool) throws {
        var tree = LayerTree()
        try tree.apply(Commit(client: 1, content: .connect))
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
        for i in 1...50 {
            let id = UInt32(i)
            let parent: UInt32 = (i % 5 == 0 || i < 5) ? 0 : UInt32((i / 5) * 5)
            ops += [.create(id, i % 3 == 0 ? .shape : .layer), .addSublayer(parent: parent, child: id),
                    .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, 20, 10))),
                    .set(id, keyPath: "backgroundColor", value: .color(Color(1, 0, 0)))]
            if i % 3 == 0 { ops += [.set(id, keyPath: "path", value: .path(.ellipse(in: Rect(0, 0, 20, 10)))),
                                    .set(id, keyPath: "fillColor", value: .color(Color(0, 0, 1)))] }
            if i % 4 == 0 { ops += [.set(id, keyPath: "masksToBounds", value: .bool(true))] }
        }
        try tree.apply(Commit(client: 1, content: .operations(ops)))
        var timing = AnimationTiming(duration: 1)
        timing.repeatCount = .infinity
        var animations: [LayerChange] = []
        for i in stride(from: 1, through: 50, by: 2) {
            animations.append(.addAnimation(UInt32(i), key: "move", animation: .basic(BasicAnimation(
                keyPath: "position", from: .point(Point(0, 0)), to: .point(Point(80, 40)), timing: timing))))
            animations.append(.addAnimation(UInt32(i), key: "spin", animation: .basic(BasicAnimation(
                keyPath: "transform.rotation.z", from: .double(0), to: .double(1), timing: timing))))
        }
        try tree.apply(Commit(client: 1, content: .operations(animations)))
        var builder = DrawListBuilder(widthPoints: 160, heightPoints: 120, scale: 1, background: .black)
        builder.usesShapeAtlas = atlas
        var snapshots = SnapshotMaker()
        var previous: DrawList?
        for frame in 0..<20 {
            let t = Double(frame) / 60
            tree.advance(to: t)
            let snapshot = snapshots.make(from: tree, at: t)
            // As before the render thread sleeps: the next build patches a copy of the last list.
            if frame % 7 == 6 { builder.releaseSpareBuffers() }
            let atlasBefore = builder.shapeAtlas.copy()
            let list = builder.build(snapshot.tree)
            // With the atlas, the first shape of each path gets its entry from the second
            // build on (the others already in the first, from the first one's candidate).
            #expect(builder.lastBuildPatched == (frame > 0) || (atlas && frame == 1), "frame \(frame)")
            if builder.lastBuildPatched { #expect(builder.patcher.moved > 0, "frame \(frame)") }
            if let previous, builder.lastBuildPatched {
                // Only the animated layers' visits (odd layers and their sublayers) are compared.
                #expect(list.delta?.base == previous.serial)
                #expect((list.delta?.rewritten.reduce(0) { $0 + $1.count } ?? .max) < list.items.count)
                Self.checkDamage(previous, list, "frame \(frame)")
            }
            previous = list
            var reference = builder
            reference.shapeAtlas = atlasBefore
            reference.patchesInPlace = false
            let expected = reference.build(snapshot.tree)
            #expect(list.items.count == expected.items.count && list.plan == expected.plan)
            #expect(zip(list.items, expected.items).allSatisfy {
                Self.same($0, $1, aAtlas: list.shapeAtlas?.base, bAtlas: expected.shapeAtlas?.base)
            }, "frame \(frame)")
            if atlas, frame > 1 {
                #expect(list.items.contains { if case .image(let d) = $0.kind { d.mode != .color } else { false } })
            }
        }
    }
}
