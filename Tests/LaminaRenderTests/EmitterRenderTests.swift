import Foundation
import Testing
import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaTree
import TestSupport
@testable import LaminaRender
import LaminaModel

/// Emitter layers through Vulkan (lavapipe): a particle's pixels in normal and additive render
/// modes against the compositing formulas, overlapping additive particles' clamped sums, an
/// image particle tinted by its color, and
/// damage-limited frames of moving particles equal to whole redraws.
@Suite("Emitter pixels")
struct EmitterRenderTests {
    /// One still particle: birthRate 1 (born at 0 only, within 1 s), no velocity, scale 20, in
    /// `color`, at (30, 30) of a 60 × 60 canvas whose background is `background`.
    func render(_ color: Color, mode: String, background: Color, contents: String? = nil,
                images: [String: Image] = [:]) throws -> [UInt8] {
        try render([Self.still(color, size: 20, contents: contents)], mode: mode, background: background, images: images)
    }

    /// A cell whose one particle (born at 0) stays at the emitter's position, `size` points
    /// across (a square, or a 10 × 10 image scaled).
    static func still(_ color: Color, size: Double, contents: String? = nil) -> EmitterCell {
        var cell = EmitterCell()
        cell.birthRate = 1; cell.lifetime = 10; cell.scale = contents == nil ? size : size / 10; cell.color = color
        cell.contents = contents
        return cell
    }

    func render(_ cells: [EmitterCell], mode: String, background: Color, images: [String: Image] = [:],
                clipped: Bool = false) throws -> [UInt8] {
        let t = try TestScene.tree(TestScene.layer(1, .emitter, frame: Rect(0, 0, 60, 60), [
            ("emitterPosition", .point(Point(30, 30))), ("renderMode", .string(mode)),
            ("emitterCells", .emitterCells(cells)), ("masksToBounds", .bool(clipped)), ("cornerRadius", .number(clipped ? 4 : 0)),
        ]))
        let compositor = try HeadlessCompositor(widthPoints: 60, heightPoints: 60, scale: 1, background: background)
        compositor.images = images
        return try compositor.render(t.presentation(at: 0.5), at: 0.5)
    }

    func pixel(_ p: [UInt8], _ x: Int, _ y: Int) -> [Int] { (0..<4).map { Int(p[(y * 60 + x) * 4 + $0]) } }

    func near(_ a: [Int], _ b: [Int], _ tolerance: Int = 1) -> Bool { zip(a, b).allSatisfy { abs($0 - $1) <= tolerance } }

    @Test func additiveAddsWhereNormalBlends() throws {
        let blue = Color(0, 0, 1, 1), red = Color(1, 0, 0, 0.5)
        // Source-over: 0.5 · red + 0.5 · blue = (128, 0, 128); plusLighter on premultiplied
        // values: (0.5, 0, 0) + (0, 0, 1) = (128, 0, 255).
        let normal = try render(red, mode: "unordered", background: blue)
        let additive = try render(red, mode: "additive", background: blue)
        #expect(near(pixel(normal, 30, 30), [128, 0, 128, 255]), "\(pixel(normal, 30, 30))")
        #expect(near(pixel(additive, 30, 30), [128, 0, 255, 255]), "\(pixel(additive, 30, 30))")
        // The square is 20 points: 21…39 is inside, 5 and 45 outside.
        #expect(pixel(normal, 21, 38) == pixel(normal, 30, 30) && pixel(normal, 5, 30) == [0, 0, 255, 255])
        #expect(pixel(additive, 45, 30) == [0, 0, 255, 255])
    }

    /// Two particles of one additive emitter overlapping: each adds to the other and to the
    /// background (plusLighter per particle, sums clamped), where one group would have blended
    /// them source-over first. Premultiplied: red at 0.5 is (0.5, 0, 0, 0.5), yellow at 0.75
    /// (0.75, 0.75, 0, 0.75), the background blue (0, 0, 1, 1). Where both lie: (1.25 → 1,
    /// 0.75, 1, 2.25 → 1) = (255, 191, 255, 255) (a group: yellow over red, 0.875 red: 223);
    /// where only the red (20 points) lies: (128, 0, 255, 255). Squares (rect kinds), square
    /// images in a color (image kinds) and clipped by rounded bounds (clipped variants).
    @Test(arguments: [false, true], [false, true])
    func overlappingAdditiveParticlesAddUp(images: Bool, clipped: Bool) throws {
        let white = Image(width: 10, height: 10, format: .rgba8, pixels: [UInt8](repeating: 255, count: 400))
        let contents = images ? "w" : nil
        let red = Self.still(Color(1, 0, 0, 0.5), size: 20, contents: contents)
        let yellow = Self.still(Color(1, 1, 0, 0.75), size: 10, contents: contents)
        for cells in [[red, yellow], [yellow, red]] {
            let p = try render(cells, mode: "additive", background: Color(0, 0, 1, 1), images: ["w": white], clipped: clipped)
            for (x, y) in [(30, 30), (26, 33)] {
                #expect(near(pixel(p, x, y), [255, 191, 255, 255]), "both at \(x), \(y): \(pixel(p, x, y))")
            }
            for (x, y) in [(22, 22), (37, 30), (30, 38)] {
                #expect(near(pixel(p, x, y), [128, 0, 255, 255]), "red at \(x), \(y): \(pixel(p, x, y))")
            }
            #expect(pixel(p, 10, 30) == [0, 0, 255, 255] && pixel(p, 30, 45) == [0, 0, 255, 255])
        }
    }

    @Test func anImageParticleIsTintedByItsColor() throws {
        // A 10 × 10 opaque white image at scale 2: 20 points, in green at alpha 1.
        let white = Image(width: 10, height: 10, format: .rgba8, pixels: [UInt8](repeating: 255, count: 400))
        let p = try render(Color(0, 1, 0, 1), mode: "unordered", background: Color(0, 0, 0, 1), contents: "w",
                           images: ["w": white])
        #expect(near(pixel(p, 30, 30), [0, 255, 0, 255]), "\(pixel(p, 30, 30))")
        #expect(near(pixel(p, 22, 37), [0, 255, 0, 255]) && pixel(p, 5, 5) == [0, 0, 0, 255])
        // White: drawn as is, at the color's alpha.
        let half = try render(Color(1, 1, 1, 0.5), mode: "unordered", background: Color(0, 0, 0, 1), contents: "w",
                              images: ["w": white])
        #expect(near(pixel(half, 30, 30), [128, 128, 128, 255]), "\(pixel(half, 30, 30))")
    }

    @Test(arguments: ["unordered", "additive"])
    func damageLimitedEmitterFramesEqualFullRedraws(mode: String) throws {
        let size = 96
        var model = ModelTree()
        var driver = FrameDriver(widthPoints: Double(size), heightPoints: Double(size), scale: 1,
                                 background: Color(0.2, 0.2, 0.25), targetFPS: 60)
        var cell = EmitterCell()
        cell.birthRate = 8; cell.lifetime = 0.6; cell.velocity = 40; cell.emissionRange = .pi; cell.scale = 4
        cell.spin = 3; cell.color = Color(1, 0.8, 0.2, 1); cell.alphaSpeed = -1
        let scene = TestScene.layer(1, .emitter, frame: Rect(0, 0, 48, 48), [
            ("emitterPosition", .point(Point(24, 24))), ("emitterCells", .emitterCells([cell])), ("seed", .number(4)),
            ("renderMode", .string(mode)),
        ]) + TestScene.layer(2, frame: Rect(70, 70, 20, 20), [("backgroundColor", .color(Color(1, 0, 0)))])
        let pending = [try model.validate(Commit(client: 1, content: .connect)),
                       try model.validate(Commit(client: 1, content: .operations(scene)), at: 0)]
        try expectDamageLimitedFramesEqualFullRedraws(&driver, size: size, frames: 12, initial: pending, label: "emitter \(mode)")
    }
}
