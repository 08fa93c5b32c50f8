import Testing
import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaTree
import TestSupport
@testable import LaminaRender
import LaminaModel

/// Animated filter fields reach the pixels: mid-animation, a frame equals byte for byte the
/// frame of the same scene with the field set to the value the timing formula gives there
/// (that static blur is checked against cairo by SceneGoldenTests).
@Suite("Animated filter fields, rendered")
struct FilterAnimationRenderTests {
    /// A frame of a layer over stripes with `filters` and a frosted panel with
    /// `backgroundFilters`, at `time`, with `extra` operations (animations) applied at 0.
    func frame(blur: Double, frost: Double, extra: [LayerChange], at time: Double) throws -> [UInt8] {
        var model = ModelTree()
        var driver = FrameDriver(widthPoints: 64, heightPoints: 64, scale: 1, background: Color(1, 1, 1), targetFPS: 60)
        var ops: [LayerChange] = []
        for (i, x) in [8.0, 24, 40, 56].enumerated() {
            let id = UInt32(i + 1)
            ops += [.create(id, .layer), .addSublayer(parent: 0, child: id),
                    .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, 6, 64))),
                    .set(id, keyPath: "position", value: .point(Point(x, 32))),
                    .set(id, keyPath: "backgroundColor", value: .color(Color(0, 0.4, 1)))]
        }
        ops += [.create(10, .layer), .addSublayer(parent: 0, child: 10),
                .set(10, keyPath: "bounds", value: .rect(Rect(0, 0, 20, 20))),
                .set(10, keyPath: "position", value: .point(Point(20, 16))),
                .set(10, keyPath: "backgroundColor", value: .color(Color(1, 0.2, 0.1))),
                .set(10, keyPath: "filters", value: .filters([.gaussianBlur(blur, name: "blur")])),
                .create(11, .layer), .addSublayer(parent: 0, child: 11),
                .set(11, keyPath: "bounds", value: .rect(Rect(0, 0, 56, 24))),
                .set(11, keyPath: "position", value: .point(Point(32, 44))),
                .set(11, keyPath: "cornerRadius", value: .number(8)),
                .set(11, keyPath: "backgroundFilters", value: .filters([.gaussianBlur(frost, name: "frost")]))]
        let packets = [try model.validate(Commit(client: 1, content: .connect), at: 0),
                       try model.validate(Commit(client: 1, content: .operations(ops + extra)), at: 0)]
        _ = driver.frame(applying: packets, at: 0)
        let f = driver.frame(applying: [], at: time)
        let renderer = try makeRenderer(width: 64, height: 64)
        try renderer.render(f.drawList)
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
        return try renderer.readPixels()
    }

    @Test func midAnimationFramesEqualTheStaticFrameAtTheFormulasValue() throws {
        // Linear over 2 s from 0.5 to 4.5 (blur) and 1 to 9 (frost): at t = 1, x = ½ → 2.5 and 5.
        let animations: [LayerChange] = [
            .addAnimation(10, key: "b", animation: .basic(BasicAnimation(
                keyPath: "filters.blur.radius", from: .double(0.5), to: .double(4.5), timing: AnimationTiming(duration: 2)))),
            .addAnimation(11, key: "f", animation: .basic(BasicAnimation(
                keyPath: "backgroundFilters.frost.radius", from: .double(1), to: .double(9),
                timing: AnimationTiming(duration: 2)))),
        ]
        let animated = try frame(blur: 0.5, frost: 1, extra: animations, at: 1)
        let still = try frame(blur: 2.5, frost: 5, extra: [], at: 1)
        let start = try frame(blur: 0.5, frost: 1, extra: [], at: 1)
        #expect(animated == still)
        #expect(animated != start, "the animation changed the frame")
    }
}
