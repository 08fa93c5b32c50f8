import Testing
import LaminaAnimation
@testable import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaModel
import LaminaTree
import TestSupport
@testable import LaminaRender

/// A patched frame draws with the draws its slot held (`RecordedDraw.image` / `.mesh` name
/// their texture and mesh unretained) and re-resolves only the changed items. These drive the
/// sequences that could leave a held draw naming an object freed or replaced meanwhile — a
/// raster-atlas page redrawn in place or replaced at a new size, a page freed, images
/// forgotten or replaced — while other layers only move, and expect every frame to equal,
/// byte for byte, the same frame with every instance written and recorded (`reusesWork`
/// off), with the validation layer silent. What keeps the held objects alive: a list naming
/// a raster page carries a `.raster` marker, so it is never patched (every frame re-resolves
/// its page); a held image or mesh is marked used by every patched frame, and a slot's held
/// list is at most `framesInFlight` frames old, far below the residencies' idle frames.
@Suite("Held draws' objects stay alive")
struct HeldDrawLifetimeTests {
    /// A `side` × `side` opaque image: red `r`, green `g`, blue varying by pixel from `b`.
    static func solid(_ side: Int, _ r: UInt8, _ g: UInt8, _ b: UInt8) -> Image {
        Image(width: side, height: side,
              premultipliedPixels: Array((0..<(side * side)).map { k in [r, g, UInt8((Int(b) + k * 7) % 256), 255] }.joined()))
    }

    /// Twelve squares, layer 1 sliding for `duration` seconds (so frames patch its motion).
    static func row(duration: Double) -> [LayerChange] {
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
        for id in UInt32(1)...12 {
            ops += TestScene.layer(id, frame: Rect(Double(id % 6) * 14 + 2, Double(id / 6) * 14 + 2, 10, 10),
                                   [("backgroundColor", .color(Color(Double(id) / 12, 0.5, 0.2)))])
        }
        ops.append(.addAnimation(1, key: "slide", animation: .basic(BasicAnimation(
            keyPath: "position.y", from: .double(8), to: .double(88), timing: AnimationTiming(duration: duration)))))
        return ops
    }

    /// Drives `frames` frames through a reusing renderer and a reference one: `step(frame,
    /// &driver)` gives the next frame's operations (and may change the viewport);
    /// `check(frame, list, renderer)` looks at the reusing renderer after each frame.
    static func compare(frames: Int, size: Int, first: [LayerChange], images: [String: Image],
                        step: (Int, inout FrameDriver) -> [LayerChange],
                        check: (Int, DrawList, OffscreenRenderer) -> Void) throws -> OffscreenRenderer {
        var model = ModelTree()
        var driver = FrameDriver(widthPoints: Double(size), heightPoints: Double(size), scale: 1,
                                 background: Color(0.1, 0.1, 0.15), targetFPS: 60)
        driver.tracksDamage = false
        driver.rasterizesAutomatically = false
        for (name, image) in images { driver.setImage(name, image) }
        let reusing = try makeRenderer(width: size, height: size)
        let fresh = try makeRenderer(width: size, height: size)
        fresh.reusesWork = false
        var pending = [try model.validate(Commit(client: 1, content: .connect), at: 0),
                       try model.validate(Commit(client: 1, content: .operations(first)), at: 0)]
        for frame in 0..<frames {
            let list = driver.frame(applying: pending, at: Double(frame) / 60).drawList
            try reusing.render(list)
            try fresh.render(list)
            let a = try reusing.readPixels(), b = try fresh.readPixels()
            let differing = zip(a, b).filter { $0 != $1 }.count
            #expect(a.count == b.count && differing == 0, "frame \(frame): \(differing) bytes differ")
            check(frame, list, reusing)
            let ops = step(frame, &driver)
            pending = ops.isEmpty ? [] : [try model.validate(Commit(client: 1, content: .operations(ops)), at: 0)]
        }
        #expect(reusing.validationMessages.isEmpty, "\(reusing.validationMessages)")
        #expect(fresh.validationMessages.isEmpty, "\(fresh.validationMessages)")
        #expect(fresh.framesPatched == 0)
        return reusing
    }

    /// A rasterized layer beside the sliding one: its sublayer recolored (the page's region
    /// drawn again in place), the viewport resized (the page replaced at the new size, same
    /// id), rasterization turned off (the page unnamed, freed after `RasterAtlas.idleFrames`
    /// while the others patch), then on again (a new page).
    @Test func rasterPagesRedrawnReplacedAndFreedWhileOthersMove() throws {
        var first = Self.row(duration: 2)
        first += TestScene.layer(50, frame: Rect(50, 40, 36, 30), [
            ("backgroundColor", .color(Color(1, 1, 1))), ("cornerRadius", .number(6)), ("shouldRasterize", .bool(true)),
        ])
        first += TestScene.layer(51, parent: 50, frame: Rect(4, 4, 16, 16), [("backgroundColor", .color(Color(1, 0.2, 0.2)))])
        var patchedNamingPage = 0, framesNamingPage = 0, pagesAtResize: [UInt64] = []
        var patched = 0
        let renderer = try Self.compare(frames: 90, size: 96, first: first, images: [:]) { frame, driver in
            switch frame {
            case 4: return [.set(51, keyPath: "backgroundColor", value: .color(Color(0.2, 0.4, 1)))]
            case 8:
                driver.setViewport(widthPoints: 112, heightPoints: 100, scale: 1)
                return []
            case 12: return [.set(50, keyPath: "shouldRasterize", value: .bool(false))]
            case 80: return [.set(50, keyPath: "shouldRasterize", value: .bool(true))]
            default: return []
            }
        } check: { frame, list, renderer in
            if list.rasterAtlas != nil {
                framesNamingPage += 1
                if renderer.framesPatched != patched { patchedNamingPage += 1 }
            }
            patched = renderer.framesPatched
            if frame == 8 { pagesAtResize = Array(renderer.rasterAtlas.pages.keys) }
            if frame == 9 {
                // A new size empties the builder's cache: the page of the new size is a new
                // one (a new id), the old one left unnamed (no page is replaced in place).
                let named = list.rasterAtlas?.pages.map(\.id) ?? []
                #expect(named.count == 1 && !pagesAtResize.contains(named[0]))
                #expect(renderer.rasterAtlas.pages[named[0]]?.image.width == 112)
                #expect(renderer.rasterAtlas.pages.count == 2)
            }
            // Unnamed since frame 13: freed once idle (the moving layer's frames patch meanwhile).
            if frame == 13 + Int(RasterAtlas.idleFrames) + 2 { #expect(renderer.rasterAtlas.pages.isEmpty) }
        }
        #expect(framesNamingPage == 13 + 9)  // frames 0…12 and 81…89
        // The invariant that keeps a held page alive: a list naming one is never patched.
        #expect(patchedNamingPage == 0)
        #expect(renderer.framesPatched >= 50, "the frames between did not patch (\(renderer.framesPatched))")
        #expect(renderer.rasterAtlas.passesDrawn >= 4)
    }

    /// Image layers (one small, in the small-image atlas; one of its own texture) left as they
    /// are for more than `ImageResidency.idleFrames` frames while another layer moves, then
    /// swapped for other images (the old ones forgotten while the frames keep patching, the
    /// new ones drawn only through held draws for well over `ImageResidency.idleFrames`
    /// frames), then one removed from the image map.
    @Test func imagesKeptForgottenAndReplacedWhileOthersMove() throws {
        var first = Self.row(duration: 3)
        first += TestScene.layer(60, frame: Rect(40, 50, 20, 20), [("contents", .string("small"))])
        first += TestScene.layer(61, frame: Rect(64, 50, 28, 28), [("contents", .string("big"))])
        let images = ["small": Self.solid(6, 250, 20, 0), "big": Self.solid(300, 20, 240, 0),
                      "small2": Self.solid(5, 40, 250, 0), "big2": Self.solid(280, 200, 200, 0)]
        var uploadsBefore = 0, residentAfterSwap = 0, patchedBefore = 0, patchedAfter = 0
        let renderer = try Self.compare(frames: 140, size: 96, first: first, images: images) { frame, driver in
            switch frame {
            case 40: return [.set(60, keyPath: "contents", value: .string("big2")),
                             .set(61, keyPath: "contents", value: .string("small2"))]
            case 110:
                driver.setImage("small2", nil)
                return [.set(61, keyPath: "contents", value: .string("big"))]
            default: return []
            }
        } check: { frame, _, renderer in
            if frame == 39 {
                uploadsBefore = renderer.textures.uploads
                #expect(renderer.textures.count == 2)
            }
            // After the contents' cross-fade starts: old and new images.
            if frame == 42 { residentAfterSwap = renderer.textures.count }
            if frame == 57 { patchedBefore = renderer.framesPatched }
            // Frames 58… only patch: the new images are drawn through the held draws alone,
            // for more than `idleFrames` frames, and the old ones are forgotten meanwhile.
            // (Past a sweep, `forgetIdle` runs every 8 frames, of images idle since frame 58.)
            if frame == 57 + Int(ImageResidency.idleFrames) + 1 { #expect(renderer.textures.count == 2) }
            if frame == 106 {
                patchedAfter = renderer.framesPatched
                #expect(renderer.textures.count == 2)
            }
        }
        #expect(uploadsBefore == 2)
        #expect(residentAfterSwap == 4)
        #expect(patchedAfter - patchedBefore == 106 - 57, "frames 58…106 did not all patch (\(patchedAfter - patchedBefore))")
    }
}
