import Testing
import LaminaGeometry
import LaminaModel
@testable import LaminaFrame
import TestSupport

/// The frame's explicit passes: which images, areas, steps and dependencies a translucent
/// group and a blurred shadow produce (no GPU).
@Suite("Frame plan")
struct FramePlanTests {
    let whole = PixelRect(minX: 0, minY: 0, maxX: 64, maxY: 64)

    @Test func translucentGroupIsAPassIntoAnImageCompositedByTheFramePass() throws {
        // Layer 1 (opacity 0.5) with a sublayer: a group. Items: [group marker, 1's background,
        // 2's background]; then layer 3, opaque, after it.
        let list = TestScene.list(try TestScene.tree(
            TestScene.layer(1, frame: Rect(8, 8, 32, 32), [("backgroundColor", .color(Color(1, 0, 0))), ("opacity", .number(0.5))])
            + TestScene.layer(2, parent: 1, frame: Rect(4, 4, 8, 8), [("backgroundColor", .color(Color(0, 0, 1)))])
            + TestScene.layer(3, frame: Rect(40, 40, 8, 8), [("backgroundColor", .color(Color(0, 1, 0)))])))
        #expect(list.items.count == 4)
        guard case .group(0.5, 2) = list.items[0].kind else { Issue.record("\(list.items[0].kind)"); return }
        let plan = list.plan
        #expect(plan.imageCount == 1)
        // The group's pass covers its items' device box (8…40, the anti-aliasing margin of 1.5
        // and a pixel more, rounded out), not the whole target.
        #expect(plan.passes == [
            FramePass(target: .image(0), area: PixelRect(minX: 5, minY: 5, maxX: 43, maxY: 43), steps: 0..<1,
                      dependencies: 0..<0),
            FramePass(target: .frame, area: whole, steps: 1..<3, dependencies: 0..<1),
        ])
        #expect(plan.steps == [.items(1..<3), .composite(image: 0, opacity: 0.5), .items(3..<4)])
        #expect(plan.dependencies == [0])
    }

    /// A rasterized layer (shouldRasterize) with a sublayer, moved to (10.5, 20.25): items
    /// [.raster marker, its background and the sublayer's in the atlas, the composite]; the plan
    /// draws the two into the marker's region of page 0 (an `.atlas` pass with the marker's
    /// version) before the frame pass, which draws the composite, an image item, as any item.
    @Test func rasterizedLayerIsAnAtlasPassThenItsCompositeInTheFramePass() throws {
        let list = TestScene.list(try TestScene.tree(
            TestScene.layer(1, frame: Rect(10.5, 20.25, 20, 10), [("backgroundColor", .color(Color(1, 0, 0))),
                                                                  ("shouldRasterize", .bool(true))])
            + TestScene.layer(2, parent: 1, frame: Rect(2, 2, 4, 4), [("backgroundColor", .color(Color(0, 0, 1)))])))
        #expect(list.items.count == 4)
        guard case .raster(let r) = list.items[0].kind, case .image(let composite) = list.items[3].kind else {
            Issue.record("\(list.items.map(\.kind))"); return
        }
        #expect(r.page == 0 && r.count == 2 && r.version != 0)
        // The drawing's box: 20 × 10 points with the 1.5-pixel margin rounded out (−2…22, −2…12),
        // and 2 texels of padding: 28 × 18 texels at the page's corner.
        #expect(r.region == PixelRect(minX: 0, minY: 0, maxX: 28, maxY: 18))
        // In the region the layer's plane starts at (4, 4), a whole-pixel offset (its 10.5, 20.25
        // lies in the composite's transform only).
        #expect(list.items[1].transform.m41 == 4 && list.items[1].transform.m42 == 4)
        #expect(list.items[3].transform.m41 == 10.5 && list.items[3].transform.m42 == 20.25)
        #expect(composite.geometry.frame == Rect(-2, -2, 24, 14))
        #expect(composite.image === list.rasterAtlas?.pages[0])
        #expect(list.plan.passes == [
            { var p = FramePass(target: .atlas(0), area: r.region, steps: 0..<1, dependencies: 0..<0)
              p.rasterVersion = r.version; return p }(),
            FramePass(target: .frame, area: whole, steps: 1..<2, dependencies: 0..<1),
        ])
        #expect(list.plan.steps == [.items(1..<3), .items(3..<4)])
    }

    @Test func blurredShadowIsContentThenHorizontalBlurThenVerticalBlurInTheParent() throws {
        // Layer 1 at (20, 20, 10, 10) with a sublayer inside it casts a blurred shadow (σ = 2,
        // no offset): items [shadowGroup marker, 1, 2 (the source), 1, 2 (drawn)].
        let list = TestScene.list(try TestScene.tree(
            TestScene.layer(1, frame: Rect(20, 20, 10, 10), [("backgroundColor", .color(Color(1, 0, 0))),
                                                  ("shadowOpacity", .number(1)), ("shadowRadius", .number(2)),
                                                  ("shadowOffset", .size(Size(0, 0)))])
            + TestScene.layer(2, parent: 1, frame: Rect(2, 2, 4, 4), [("backgroundColor", .color(Color(0, 0, 1)))])))
        #expect(list.items.count == 5)
        guard case .shadowGroup(_, 2, 2) = list.items[0].kind else { Issue.record("\(list.items[0].kind)"); return }
        // The source's device box is 20…30, plus the anti-aliasing fringe (1.5 px): 18.5…31.5,
        // whole pixels 18…32; grown by ⌈3σ⌉ + 1 = 7: 11…39.
        let area = PixelRect(minX: 11, minY: 11, maxX: 39, maxY: 39)
        // The horizontal direction only over the source's rows (18…32 and a pixel): the rest of
        // its image is cleared, as blurring transparent rows would leave it.
        let rows = PixelRect(minX: 11, minY: 17, maxX: 39, maxY: 33)
        let plan = list.plan
        #expect(plan.imageCount == 2)
        #expect(plan.passes == [
            FramePass(target: .image(0), area: area, steps: 0..<1, dependencies: 0..<0),
            FramePass(target: .image(1), area: area, steps: 1..<2, dependencies: 0..<1),
            FramePass(target: .frame, area: whole, steps: 2..<4, dependencies: 1..<2),
        ])
        #expect(plan.steps == [
            .items(1..<3),
            .blur(source: 0, marker: 0, vertical: false, sigma: 2, valid: area, scissor: rows),
            .blur(source: 1, marker: 0, vertical: true, sigma: 2, valid: area, scissor: area),
            .items(3..<5),
        ])
        #expect(plan.dependencies == [0, 1])
    }

    @Test func backgroundFiltersCopyTheirBoxOutOfThePassSoFarFilterItAndMixItIn() throws {
        // Layer 1 (20, 20, 10, 10) drawn, then layer 2 (40, 40, 20, 10) with backgroundFilters
        // [blur σ 2]: items [1, backdrop, …]. The backdrop box: 38.5…61.5 → 38…62 (x), grown
        // by the planner's pixel: 37…63 × 37…53; the blur reads ⌈3σ⌉ + 1 = 7 beyond, cut to the
        // 64 × 64 target: 30…64 × 30…60.
        let list = TestScene.list(try TestScene.tree(
            TestScene.layer(1, frame: Rect(20, 20, 10, 10), [("backgroundColor", .color(Color(1, 0, 0)))])
            + TestScene.layer(2, frame: Rect(40, 40, 20, 10), [("backgroundFilters", .filters([.gaussianBlur(2)]))])))
        guard case .backdrop = list.items[1].kind else { Issue.record("\(list.items.map(\.kind))"); return }
        let box = PixelRect(minX: 37, minY: 37, maxX: 63, maxY: 53)
        let grown = PixelRect(minX: 30, minY: 30, maxX: 64, maxY: 60)
        let plan = list.plan
        // The frame pass is cut at the backdrop: the pass so far draws into the frame, the grown
        // box is copied out of it into the backdrop image (no second drawing of the steps), the
        // blur reads that, and the frame pass goes on over what it drew (loads, not cleared).
        #expect(plan.passes == [
            FramePass(target: .frame, area: whole, steps: 0..<1, dependencies: 0..<0,
                      copyOut: FramePass.CopyOut(image: 0, area: grown, box: box, reach: 7)),
            FramePass(target: .image(1), area: grown, steps: 1..<2, dependencies: 0..<1),
            FramePass(target: .frame, area: whole, steps: 2..<3, dependencies: 1..<2, loads: true),
        ])
        #expect(plan.steps == [
            .items(0..<1),
            .blur(source: 0, marker: 1, vertical: false, sigma: 2, valid: grown, scissor: grown),
            .backdrop(source: 1, backdrop: 0, marker: 1, sigma: 2, valid: grown, scissor: box),
        ])
        #expect(plan.dependencies == [0, 1])
        // σ 8 (> downsampleAbove 3, not above quarterAbove 8): the [1 3 3 1] downsampling into
        // half size, both directions there at √(64 − 3/2)/2, and the last step upsamples (read
        // scale ½).
        let large = TestScene.list(try TestScene.tree(
            TestScene.layer(1, frame: Rect(20, 20, 10, 10), [("backgroundColor", .color(Color(1, 0, 0)))])
            + TestScene.layer(2, frame: Rect(40, 40, 20, 10), [("backgroundFilters", .filters([.gaussianBlur(8)]))])))
        let steps = large.plan.steps
        let s = (62.5).squareRoot() / 2
        guard steps.count == 5, case .blur(_, _, false, 0, _, _, 2) = steps[1], case .blur(_, _, false, s, _, _, 1) = steps[2],
              case .blur(_, _, true, s, _, _, 1) = steps[3], case .backdrop(_, _, _, 0, _, _, 0.5) = steps[4] else {
            Issue.record("\(steps)"); return
        }
    }

    @Test func filterGroupIsContentThenAPassPerColorFilterAndTwoPerBlur() throws {
        // Layer 1 at (20, 20, 10, 10), opacity 0.8, filters [grayscale 1, blur σ 2]: items
        // [filter marker, 1]. The content box 18…32 (as the shadow's above) grown by the blur's
        // reach ⌈3σ⌉ + 1 = 7 and the usual pixel: 10…40.
        let gray = LayerFilter(kind: .grayscale, amount: 1)
        let list = TestScene.list(try TestScene.tree(
            TestScene.layer(1, frame: Rect(20, 20, 10, 10), [("backgroundColor", .color(Color(1, 0, 0))),
                                                              ("opacity", .number(0.8)),
                                                              ("filters", .filters([gray, .gaussianBlur(2)]))])))
        #expect(list.items.count == 2)
        guard case .filter(let filters, 0.8, 1) = list.items[0].kind, filters.count == 2 else {
            Issue.record("\(list.items[0].kind)"); return
        }
        let area = PixelRect(minX: 10, minY: 10, maxX: 40, maxY: 40)
        let plan = list.plan
        #expect(plan.imageCount == 2)
        #expect(plan.passes == [
            FramePass(target: .image(0), area: area, steps: 0..<1, dependencies: 0..<0),
            FramePass(target: .image(1), area: area, steps: 1..<2, dependencies: 0..<1),
            FramePass(target: .image(0), area: area, steps: 2..<3, dependencies: 1..<2),
            FramePass(target: .image(1), area: area, steps: 3..<4, dependencies: 2..<3),
            FramePass(target: .frame, area: whole, steps: 4..<5, dependencies: 3..<4),
        ])
        #expect(plan.steps == [
            .items(1..<2),
            .filtered(image: 0, matrix: gray.colorMatrix!, opacity: 1),
            .blur(source: 1, marker: 0, vertical: false, sigma: 2, valid: area, scissor: area),
            .blur(source: 0, marker: 0, vertical: true, sigma: 2, valid: area, scissor: area),
            .composite(image: 1, opacity: 0.8),
        ])
        #expect(plan.dependencies == [0, 1, 2, 3])
        // A last color filter draws in the parent pass at the opacity, no composite.
        let tinted = TestScene.list(try TestScene.tree(
            TestScene.layer(1, frame: Rect(20, 20, 10, 10), [("backgroundColor", .color(Color(1, 0, 0))),
                                                              ("filters", .filters([gray]))])))
        #expect(tinted.plan.steps.last == .filtered(image: 0, matrix: gray.colorMatrix!, opacity: 1))
        #expect(tinted.plan.passes.count == 2)
    }

    @Test func nestedGroupsAndImageReuse() {
        // Two sibling groups, the first holding a nested group: the first group takes image 0,
        // its nested group image 1, whose pass comes first; image 1 is free again once the
        // first group's pass (which samples it) is complete, so the second sibling reuses it.
        // Image 0 stays held until the frame pass samples it.
        let r = DrawItem(bounds: Rect(0, 0, 4, 4), backgroundColor: Color(1, 0, 0))
        let list = DrawList(width: 8, height: 8, items: [
            DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: 0.5, count: 3)),   // 0
            DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: 0.25, count: 1)),  // 1
            r,                                                                                        // 2
            r,                                                                                        // 3
            DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: 0.75, count: 1)),  // 4
            r,                                                                                        // 5
        ])
        let all = PixelRect(minX: 0, minY: 0, maxX: 8, maxY: 8)
        #expect(list.plan.imageCount == 2)
        #expect(list.plan.passes.map(\.target) == [.image(1), .image(0), .image(1), .frame])
        // Each group's pass covers its items' box (0…4, grown by 2.5 and rounded out, cut to the
        // target); the frame's, all of it.
        let box = PixelRect(minX: 0, minY: 0, maxX: 7, maxY: 7)
        #expect(list.plan.passes.map(\.area) == [box, box, box, all])
        #expect(list.plan.steps == [
            .items(2..<3),                                          // nested group
            .composite(image: 1, opacity: 0.25), .items(3..<4),    // first group
            .items(5..<6),                                          // second group
            .composite(image: 0, opacity: 0.5), .composite(image: 1, opacity: 0.75),  // frame
        ])
        #expect(list.plan.passes.map { Array(list.plan.dependencies[$0.dependencies]) } == [[], [0], [], [1, 2]])
    }

    @Test func aBlendAfterABackdropCutsThePassAgainAndCopiesAllOfIt() {
        // Items: 0 a rect, 1 background filters [blur σ 1] over the whole 8 × 8 target (box 0…8:
        // its bounds, anti-aliasing and the planner's pixel, cut to the target; reach ⌈3⌉ + 1 = 4),
        // 2 a blend (marker) of item 3, then item 4.
        let r = DrawItem(bounds: Rect(0, 0, 4, 4), backgroundColor: Color(1, 0, 0))
        let all = PixelRect(minX: 0, minY: 0, maxX: 8, maxY: 8)
        let list = DrawList(width: 8, height: 8, items: [
            r,                                                                                          // 0
            DrawItem(bounds: Rect(0, 0, 8, 8), backgroundColor: .clear, kind: .backdrop(filters: [.gaussianBlur(1)])),  // 1
            DrawItem(bounds: .zero, backgroundColor: .clear,
                     kind: .blend(mode: .multiplyBlendMode, opacity: 0.75, count: 1)),                  // 2
            r,                                                                                          // 3
            r,                                                                                          // 4
        ])
        let plan = list.plan
        // The frame pass: cut at the backdrop (its box copied into image 0), goes on with the
        // backdrop's result, is cut again at the blend — the frame so far copied whole into
        // image 2, the blend's backdrop, with no drawing of the steps again — and goes on with the
        // blend and item 4; neither continuation clears.
        #expect(plan.passes.map(\.target) == [.frame, .image(1), .frame, .image(1), .frame])
        #expect(plan.passes.map(\.loads) == [false, false, true, false, true])
        #expect(plan.passes.map(\.copyOut) == [FramePass.CopyOut(image: 0, area: all, box: all, reach: 4), nil,
                                               FramePass.CopyOut(image: 2, area: all, box: all, reach: 0), nil, nil])
        #expect(plan.steps == [
            .items(0..<1),
            .blur(source: 0, marker: 1, vertical: false, sigma: 1, valid: all, scissor: all),
            .backdrop(source: 1, backdrop: 0, marker: 1, sigma: 1, valid: all, scissor: all),
            .items(3..<4),
            .blend(source: 1, backdrop: 2, mode: .multiplyBlendMode, opacity: 0.75), .items(4..<5),
        ])
        #expect(plan.passes.map { Array(plan.dependencies[$0.dependencies]) } == [[], [0], [1], [], [3]])
    }

    @Test func underDamageAPassCutForACopyDrawsWhatTheCopyServesGrownByItsReach() throws {
        // The plan of `backgroundFiltersCopyTheirBox…`: box 37…63 × 37…53, grown (the copy) 30…64
        // × 30…60, reach 7; passes [frame (cut, copy), blur, frame (goes on)].
        let list = TestScene.list(try TestScene.tree(
            TestScene.layer(1, frame: Rect(20, 20, 10, 10), [("backgroundColor", .color(Color(1, 0, 0)))])
            + TestScene.layer(2, frame: Rect(40, 40, 20, 10), [("backgroundFilters", .filters([.gaussianBlur(2)]))])))
        let plan = list.plan
        try #require(plan.passes.count == 3 && plan.passes[0].copyOut != nil)
        // Damage 40…44 inside the box: the last pass draws it; the pass before the copy draws it
        // grown by 7 (33…51), cut to the copy's area; the blur pass (an image) is not cut.
        let inside = PixelRect(minX: 40, minY: 40, maxX: 44, maxY: 44)
        #expect(plan.damagedFrameAreas(inside) == [PixelRect(minX: 33, minY: 33, maxX: 51, maxY: 51), nil, inside])
        // Near the box's corner: 60…70 × 50…58 → 60…64 × 50…58 on the target; within the box
        // 60…63 × 50…53, grown by 7: 53…70 × 43…60, cut to the copy's area 30…64 × 30…60.
        let corner = PixelRect(minX: 60, minY: 50, maxX: 70, maxY: 58)
        #expect(plan.damagedFrameAreas(corner) == [PixelRect(minX: 53, minY: 43, maxX: 64, maxY: 60), nil,
                                                   PixelRect(minX: 60, minY: 50, maxX: 64, maxY: 58)])
        // Damage outside the box (within the copy's area): nothing more.
        let outside = PixelRect(minX: 0, minY: 0, maxX: 10, maxY: 10)
        #expect(plan.damagedFrameAreas(outside) == [outside, nil, outside])
        // What the first pass draws outside the damage (kept and put back by the backend).
        #expect(PixelRect(minX: 33, minY: 33, maxX: 51, maxY: 51).subtracting(inside) == [
            PixelRect(minX: 33, minY: 33, maxX: 51, maxY: 40), PixelRect(minX: 33, minY: 44, maxX: 51, maxY: 51),
            PixelRect(minX: 33, minY: 40, maxX: 40, maxY: 44), PixelRect(minX: 44, minY: 40, maxX: 51, maxY: 44)])
    }

    @Test func aBlendMovesThePassSoFarIntoItsBackdrop() {
        // Items 0, then a translucent group (1: marker, 2), then a blend (3: marker, 4) and item 5.
        // The frame pass's steps before the blend (item 0, the group's composite) go into a
        // backdrop image cleared to the frame's color; the frame pass starts again with the
        // blend of the blend group's image over it, then item 5.
        let r = DrawItem(bounds: Rect(0, 0, 4, 4), backgroundColor: Color(1, 0, 0))
        let list = DrawList(width: 8, height: 8, items: [
            r,                                                                                          // 0
            DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: 0.5, count: 1)),     // 1
            r,                                                                                          // 2
            DrawItem(bounds: .zero, backgroundColor: .clear,
                     kind: .blend(mode: .multiplyBlendMode, opacity: 0.75, count: 1)),                  // 3
            r,                                                                                          // 4
            r,                                                                                          // 5
        ])
        let plan = list.plan
        #expect(plan.passes.map(\.target) == [.image(0), .image(1), .image(0), .frame])
        #expect(plan.passes.map(\.clearsToFrameColor) == [false, true, false, false])
        #expect(plan.steps == [
            .items(2..<3),                                                     // the translucent group
            .items(0..<1), .composite(image: 0, opacity: 0.5),                  // the backdrop so far
            .items(4..<5),                                                     // the blend group
            .blend(source: 0, backdrop: 1, mode: .multiplyBlendMode, opacity: 0.75), .items(5..<6),  // frame
        ])
        #expect(plan.passes.map { Array(plan.dependencies[$0.dependencies]) } == [[], [0], [], [1, 2]])
        // Inside a group, the backdrop is cleared transparent; an empty blend group draws nothing.
        var nested = list
        nested.items.insert(DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: 1, count: 5)), at: 1)
        #expect(nested.plan.passes.filter(\.clearsToFrameColor).isEmpty)
        var empty = list
        empty.items[3].kind = .blend(mode: .screenBlendMode, opacity: 0, count: 1)
        #expect(!empty.plan.steps.contains { if case .blend = $0 { true } else { false } })
    }

    @Test func aMaskMultipliesItsGroupsPass() {
        let r = DrawItem(bounds: Rect(0, 0, 4, 4), backgroundColor: Color(1, 0, 0))
        let list = DrawList(width: 8, height: 8, items: [
            DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: 0.5, count: 4)),  // 0
            r, r,                                                                                    // 1, 2
            DrawItem(bounds: .zero, backgroundColor: .clear, kind: .mask(count: 1)),                 // 3
            r,                                                                                       // 4
        ])
        #expect(list.plan.passes.map(\.target) == [.image(1), .image(0), .frame])
        #expect(list.plan.steps == [.items(4..<5), .items(1..<3), .mask(image: 1), .composite(image: 0, opacity: 0.5)])
    }

    /// A masked group whose mask covers far more than its content (a Lottie subtract or
    /// inverted mask: the path cut out of a square standing for everywhere) and far from the
    /// rest: the mask only takes away (destination-in), so the group's pass and its mask's pass
    /// cover the content's device box — 8…24 grown by the anti-aliasing margin of 1.5 and a
    /// pixel, rounded out: 5…27 — not the mask's reach (the whole target).
    @Test func aMaskCoveringEverythingLeavesTheGroupsPassAtItsContent() {
        let content = DrawItem(bounds: Rect(8, 8, 16, 16), backgroundColor: Color(1, 0, 0))
        let everywhere = DrawItem(bounds: Rect(-100_000, -100_000, 200_000, 200_000), backgroundColor: Color(0, 0, 0))
        let far = DrawItem(bounds: Rect(200, 200, 8, 8), backgroundColor: Color(0, 0, 1))
        let list = DrawList(width: 256, height: 256, items: [
            DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: 1, count: 3)),  // 0
            content,                                                                               // 1
            DrawItem(bounds: .zero, backgroundColor: .clear, kind: .mask(count: 1)),               // 2
            everywhere,                                                                            // 3
            far,                                                                                   // 4
        ])
        let box = PixelRect(minX: 5, minY: 5, maxX: 27, maxY: 27)
        #expect(list.plan.passes == [
            FramePass(target: .image(1), area: box, steps: 0..<1, dependencies: 0..<0),
            FramePass(target: .image(0), area: box, steps: 1..<3, dependencies: 0..<1),
            FramePass(target: .frame, area: PixelRect(minX: 0, minY: 0, maxX: 256, maxY: 256), steps: 3..<5,
                      dependencies: 1..<2),
        ])
        #expect(list.plan.steps == [.items(3..<4), .items(1..<2), .mask(image: 1), .composite(image: 0, opacity: 1),
                                    .items(4..<5)])
    }

    @Test func manySiblingGroupsStayWithinTheImages() {
        // 300 sibling groups in the frame pass (each image held until the frame pass samples
        // it) and 300 in a group: the passes are cut at `maxLiveImages`, their steps so far
        // copied back from an image, so the frame never needs more than the renderer has.
        let r = DrawItem(bounds: Rect(0, 0, 4, 4), backgroundColor: Color(1, 0, 0))
        var items: [DrawItem] = []
        for _ in 0..<300 {
            items += [DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: 0.5, count: 1)), r]
        }
        items = [DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: 0.9, count: items.count))] + items + items
        let plan = DrawList(width: 8, height: 8, items: items).plan
        #expect(plan.imageCount <= FramePlanner.maxLiveImages + 2)
        let copies = plan.steps.filter { if case .copy = $0 { true } else { false } }.count
        #expect(copies >= 2 * (300 / FramePlanner.maxLiveImages) - 1)
        // Every composite samples an image drawn by an earlier pass of the plan that no pass
        // wrote again in between (the images handed out are free).
        var written: [Int: Int] = [:]   // image → pass that last drew it
        for (index, pass) in plan.passes.enumerated() {
            for step in plan.steps[pass.steps] {
                let read: Int? = switch step {
                case .composite(let image, _), .copy(let image), .mask(let image): image
                default: nil
                }
                if let read { #expect(written[read] != nil && written[read]! < index) }
            }
            if case .image(let image) = pass.target { written[image] = index }
        }
        #expect(plan.passes.last?.target == .frame)
    }

    @Test func thePlanFollowsTheItems() {
        var list = DrawList(width: 8, height: 8, items: [DrawItem(bounds: Rect(0, 0, 4, 4), backgroundColor: Color(1, 0, 0))])
        #expect(list.plan.passes.count == 1 && list.plan.steps == [.items(0..<1)])
        list.items.insert(DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: 0.5, count: 1)), at: 0)
        #expect(list.plan.passes.map(\.target) == [.image(0), .frame])
        // A group with opacity 0 draws nothing: no pass, its items left out.
        list.items[0].kind = .group(opacity: 0, count: 1)
        #expect(list.plan.passes.map(\.target) == [.frame] && list.plan.steps.isEmpty)
    }

    /// Three filter groups whose regions (their boxes grown by their blurs' reach) do not
    /// overlap share one content pass and one pass per blur direction, each pass a step per
    /// group with its own σ, read and drawn within its region; the frame pass draws each region
    /// at its place in painter's order with its opacity.
    @Test func siblingFilterGroupsShareTheirPasses() {
        func rect(_ x: Double, _ y: Double) -> DrawItem { DrawItem(bounds: Rect(x, y, 4, 4), backgroundColor: Color(1, 0, 0)) }
        func filter(_ sigma: Double, _ opacity: Double) -> DrawItem {
            DrawItem(bounds: .zero, backgroundColor: .clear, kind: .filter(filters: [.gaussianBlur(sigma)], opacity: opacity,
                                                                            count: 1))
        }
        let list = DrawList(width: 64, height: 64, items: [filter(1, 1), rect(0, 0), filter(2, 0.5), rect(30, 0),
                                                          filter(1.5, 1), rect(0, 30)])
        // Each item's box (its 1.5-pixel margin rounded out) grown by 1 + ⌈3σ⌉ + 1, cut to the target.
        let a = PixelRect(minX: 0, minY: 0, maxX: 11, maxY: 11), b = PixelRect(minX: 20, minY: 0, maxX: 44, maxY: 14)
        let c = PixelRect(minX: 0, minY: 21, maxX: 13, maxY: 43)
        let union = PixelRect(minX: 0, minY: 0, maxX: 44, maxY: 43)
        let plan = list.planned(batches: true).plan
        #expect(plan.imageCount == 2)
        #expect(plan.passes.map(\.target) == [.image(0), .image(1), .image(0), .frame])
        #expect(plan.passes.map(\.area) == [union, union, union, whole])
        // Each of the batch's passes clears the three regions only, not their union.
        #expect(plan.passes.map(\.clears) == [[a, b, c], [a, b, c], [a, b, c], nil])
        #expect(plan.steps == [
            .within(a), .items(1..<2), .within(b), .items(3..<4), .within(c), .items(5..<6),  // contents
            // The horizontal direction over each content's rows (its box grown by a pixel).
            .blur(source: 0, marker: 0, vertical: false, sigma: 1, valid: a, scissor: PixelRect(minX: 0, minY: 0, maxX: 11, maxY: 7)),
            .blur(source: 0, marker: 2, vertical: false, sigma: 2, valid: b,
                  scissor: PixelRect(minX: 20, minY: 0, maxX: 44, maxY: 7)),
            .blur(source: 0, marker: 4, vertical: false, sigma: 1.5, valid: c,
                  scissor: PixelRect(minX: 0, minY: 27, maxX: 13, maxY: 37)),
            .blur(source: 1, marker: 0, vertical: true, sigma: 1, valid: a, scissor: a),
            .blur(source: 1, marker: 2, vertical: true, sigma: 2, valid: b, scissor: b),
            .blur(source: 1, marker: 4, vertical: true, sigma: 1.5, valid: c, scissor: c),
            .region(image: 0, area: a, matrix: nil, opacity: 1), .region(image: 0, area: b, matrix: nil, opacity: 0.5),
            .region(image: 0, area: c, matrix: nil, opacity: 1),                             // frame
        ])
        // Drawn apart, the same three take three passes each (and no step is cut to a region).
        let apart = list.planned(batches: false).plan
        #expect(apart.passes.count == 10)
        #expect(!apart.steps.contains { if case .within = $0 { true } else { false } })
        #expect(list.plan == plan)  // (batches are on by default)
        // Overlapping regions do not share an image: the second group moved onto the first
        // goes into a batch of its own (a pass of its own), the other two share theirs.
        var overlapping = list
        overlapping.items[3].bounds = Rect(2, 2, 4, 4)
        #expect(overlapping.planned(batches: true).plan.passes.count == 7)
        #expect(overlapping.planned(batches: true).plan.steps.filter { if case .region = $0 { true } else { false } }.count == 2)
    }

    /// A batch of two filter groups blurred at half size (σ 4): each of its passes clears the
    /// members' regions at the pass's size — the full-size ones (content, upsampling) the
    /// regions, the half-size ones (downsampling, both directions) the half-size pixels that
    /// cover them — and no pass clears the union.
    @Test func aHalfSizeBatchClearsItsMembersRegionsAtEachSize() {
        func rect(_ x: Double) -> DrawItem { DrawItem(bounds: Rect(x, 0, 4, 4), backgroundColor: Color(1, 0, 0)) }
        let filter = DrawItem(bounds: .zero, backgroundColor: .clear,
                              kind: .filter(filters: [.gaussianBlur(4)], opacity: 1, count: 1))
        let list = DrawList(width: 128, height: 64, items: [filter, rect(0), filter, rect(80)])
        // Each square's box (-1.5…5.5 rounded out: -2…6, and 80 more for the second) grown by
        // 1 + ⌈3σ⌉ + 1 + 4 (the half-size blur's reach) = 18, cut to the target.
        let a = PixelRect(minX: 0, minY: 0, maxX: 24, maxY: 24), b = PixelRect(minX: 60, minY: 0, maxX: 104, maxY: 24)
        // Their half-size pixels: (min >> 1, (max + 1) >> 1).
        let ha = PixelRect(minX: 0, minY: 0, maxX: 12, maxY: 12), hb = PixelRect(minX: 30, minY: 0, maxX: 52, maxY: 12)
        let plan = list.planned(batches: true).plan
        #expect(plan.passes.map(\.area) == [
            PixelRect(minX: 0, minY: 0, maxX: 104, maxY: 24), PixelRect(minX: 0, minY: 0, maxX: 52, maxY: 12),
            PixelRect(minX: 0, minY: 0, maxX: 52, maxY: 12), PixelRect(minX: 0, minY: 0, maxX: 52, maxY: 12),
            PixelRect(minX: 0, minY: 0, maxX: 104, maxY: 24), PixelRect(minX: 0, minY: 0, maxX: 128, maxY: 64),
        ])
        #expect(plan.passes.map(\.clears) == [[a, b], [ha, hb], [ha, hb], [ha, hb], [a, b], nil])
        // Apart, no pass has clears of its own (each clears its area).
        #expect(list.planned(batches: false).plan.passes.allSatisfy { $0.clears == nil })
    }

    /// Groups nested in groups batch by depth: n translucent groups side by side, each holding
    /// two blurred sublayers and a mask, take the same passes for any n — one for the groups'
    /// contents, one for their masks, three for the 2n blurred sublayers, and the frame's (8n + 1
    /// apart).
    @Test(arguments: [2, 5, 12])
    func nestedGroupsBatchByDepth(n: Int) {
        var items: [DrawItem] = []
        for i in 0..<n {
            let x = Double(i * 60)
            items += [
                DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: 0.8, count: 7)),
                DrawItem(bounds: Rect(x, 0, 40, 40), backgroundColor: Color(0, 0, 1)),
                DrawItem(bounds: .zero, backgroundColor: .clear, kind: .filter(filters: [.gaussianBlur(1)], opacity: 1, count: 1)),
                DrawItem(bounds: Rect(x + 4, 4, 6, 6), backgroundColor: Color(1, 0, 0)),
                DrawItem(bounds: .zero, backgroundColor: .clear, kind: .filter(filters: [.gaussianBlur(1)], opacity: 1, count: 1)),
                DrawItem(bounds: Rect(x + 32, 32, 6, 6), backgroundColor: Color(0, 1, 0)),
                DrawItem(bounds: .zero, backgroundColor: .clear, kind: .mask(count: 1)),
                DrawItem(bounds: Rect(x + 2, 2, 36, 36), backgroundColor: Color(0, 0, 0)),
            ]
        }
        // (The regions, grown by a pixel, lie in different 8-pixel cells: `FramePlanner.batchCell`.)
        let list = DrawList(width: 60 * n, height: 48, items: items)
        let plan = list.planned(batches: true).plan
        #expect(plan.passes.count == 6)
        #expect(plan.steps.filter { if case .maskRegion = $0 { true } else { false } }.count == n)
        #expect(plan.steps.filter { if case .region = $0 { true } else { false } }.count == 3 * n)
        // Each member's steps cut to its region: the n groups', the n masks' and the 2n blurred
        // sublayers' contents.
        #expect(plan.steps.filter { if case .within = $0 { true } else { false } }.count == 4 * n)
        #expect(list.planned(batches: false).plan.passes.count == 8 * n + 1)
    }

    /// A blend inside a batched group: the batch's pass so far goes into the blend's backdrop
    /// image, the pass starts again with a copy of it over the whole pass (restoring the
    /// members drawn before) and the blend is written within the member's region only.
    @Test func aBlendInABatchedGroupIsWrittenWithinItsRegion() {
        func rect(_ x: Double, _ w: Double) -> DrawItem { DrawItem(bounds: Rect(x, 0, w, 20), backgroundColor: Color(0, 0, 1)) }
        let group = DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: 0.5, count: 3))
        let blend = DrawItem(bounds: .zero, backgroundColor: .clear, kind: .blend(mode: .multiplyBlendMode, opacity: 1, count: 1))
        let list = DrawList(width: 64, height: 32, items: [group, rect(0, 20), blend, rect(4, 8),
                                                          group, rect(40, 20), rect(44, 8)])
        // The groups' boxes: their items' 1.5-pixel margin rounded out and a pixel more.
        let a = PixelRect(minX: 0, minY: 0, maxX: 23, maxY: 23), b = PixelRect(minX: 37, minY: 0, maxX: 63, maxY: 23)
        let union = PixelRect(minX: 0, minY: 0, maxX: 63, maxY: 23), full = PixelRect(minX: 0, minY: 0, maxX: 64, maxY: 32)
        let plan = list.planned(batches: true).plan
        // The batch's pass so far (the blend's backdrop), the blend's source (over the whole
        // target), the batch's pass, the frame's.
        #expect(plan.passes.map(\.area) == [union, full, union, full])
        // The batch's pass and the pass so far moved out of it clear the two regions only.
        #expect(plan.passes.map(\.clears) == [[a, b], nil, [a, b], nil])
        let moved = plan.passes[0], batch = plan.passes[2]
        guard case .image(let backdrop) = moved.target, case .image(let source) = plan.passes[1].target else {
            Issue.record("not images: \(plan.passes)")
            return
        }
        #expect(Array(plan.steps[moved.steps]) == [.within(a), .items(1..<2)])
        #expect(Array(plan.steps[batch.steps]) == [
            .copy(image: backdrop), .within(a), .blend(source: source, backdrop: backdrop, mode: .multiplyBlendMode, opacity: 1),
            .within(b), .items(5..<7),
        ])
        #expect(Array(plan.steps[plan.passes[3].steps]).count == 2)  // the two regions
    }
}
