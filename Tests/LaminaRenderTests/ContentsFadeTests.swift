import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaTree
import Testing
import TestSupport
@testable import LaminaRender
import LaminaModel

/// `contents` cross-fades (Core Animation's implicit transition for contents, issue 13): a
/// change inside a transaction that does not disable actions fades from the old image to the
/// new over the transaction's duration and timing. Two opaque solid images, so the expected
/// pixels are worked out by hand: at progress f the layer shows (1 − f)·old + f·new.
@Suite("Contents cross-fade")
struct ContentsFadeTests {
    static let red = solid(255, 0, 0), blue = solid(0, 0, 255)

    static func solid(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Image {
        Image(width: 4, height: 4, premultipliedPixels: Array((0..<16).map { _ in [r, g, b, 255] }.joined()))
    }

    /// A driver with layer 1 at (0, 0, 20, 20) over a black 32 × 32 screen showing "red"
    /// (set at time 0, in the commit that makes it: no fade).
    func start() throws -> (ModelTree, FrameDriver) {
        var model = ModelTree()
        var driver = FrameDriver(widthPoints: 32, heightPoints: 32, scale: 1, background: .black, targetFPS: 60)
        driver.setImage("red", Self.red)
        driver.setImage("blue", Self.blue)
        let ops: [LayerChange] = [
            .create(1, .layer), .addSublayer(parent: 0, child: 1),
            .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 20, 20))),
            .set(1, keyPath: "position", value: .point(Point(10, 10))),
            .set(1, keyPath: "contents", value: .string("red")),
        ]
        _ = driver.frame(applying: [try model.validate(Commit(client: 1, content: .connect)),
                                    try model.validate(Commit(client: 1, content: .operations(ops)))], at: 0)
        return (model, driver)
    }

    /// Sets contents to "blue" at time 1 in a transaction of 1 s, linear timing (or disabled).
    func change(_ model: inout ModelTree, _ driver: inout FrameDriver, disableActions: Bool) throws -> FrameDriver.Frame {
        let packet = try model.validate(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(duration: 1, timingFunction: .linear, disableActions: disableActions)),
            .set(1, keyPath: "contents", value: .string("blue"))])), at: 1)
        return driver.frame(applying: [packet], at: 1)
    }

    func center(_ renderer: OffscreenRenderer, _ list: DrawList) throws -> RGBA {
        try renderer.render(list)
        let px = try renderer.readPixels()
        let i = (10 * 32 + 10) * 4
        return RGBA(Int(px[i]), Int(px[i + 1]), Int(px[i + 2]), Int(px[i + 3]))
    }

    @Test func theMidpointIsHalfOfEachImageAndTheEndOnlyTheNewOne() throws {
        var (model, driver) = try start()
        let renderer = try makeRenderer(width: 32, height: 32)
        let f1 = try change(&model, &driver, disableActions: false)
        // At the fade's start the new image has 0 weight: red.
        #expect(try center(renderer, f1.drawList).isClose(to: RGBA(255, 0, 0), tolerance: 1))
        #expect(driver.needsFrame(pending: false), "frames keep coming during a fade")
        // A quarter and the midpoint (linear: progress = elapsed fraction): 0.75·red + 0.25·blue, ½ + ½.
        let f2 = driver.frame(applying: [], at: 1.25)
        #expect(try center(renderer, f2.drawList).isClose(to: RGBA(191, 0, 64), tolerance: 2))
        let f3 = driver.frame(applying: [], at: 1.5)
        #expect(try center(renderer, f3.drawList).isClose(to: RGBA(128, 0, 128), tolerance: 2))
        // The fading layer is in the frame's damage.
        let damage = try #require(f3.drawList.damage).rect
        #expect(damage.minX <= 0 && damage.maxX >= 20 && damage.minY <= 0 && damage.maxY >= 20)
        // After the fade: only the new image, one image item, and no more frames needed.
        let f4 = driver.frame(applying: [], at: 2.01)
        #expect(try center(renderer, f4.drawList).isClose(to: RGBA(0, 0, 255), tolerance: 1))
        #expect(f4.drawList.items.filter { if case .image = $0.kind { true } else { false } }.count == 1)
        #expect(!driver.needsFrame(pending: false))
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }

    @Test func withActionsDisabledTheChangeIsImmediate() throws {
        var (model, driver) = try start()
        let renderer = try makeRenderer(width: 32, height: 32)
        let f1 = try change(&model, &driver, disableActions: true)
        #expect(try center(renderer, f1.drawList).isClose(to: RGBA(0, 0, 255), tolerance: 1))
        #expect(f1.drawList.items.filter { if case .image = $0.kind { true } else { false } }.count == 1)
        #expect(!driver.needsFrame(pending: false))
    }

    @Test func theOldImageStaysWhileAFadeUsesItAndIsReleasedAfter() throws {
        var (model, driver) = try start()
        let renderer = try makeRenderer(width: 32, height: 32)
        // Released in the same batch as the commit that stops showing it, before the packet
        // (as the server and the render loop order them).
        driver.setImage("red", nil)
        _ = try change(&model, &driver, disableActions: false)
        #expect(driver.builder.images["red"] != nil, "released while the fade draws it")
        let mid = driver.frame(applying: [], at: 1.5)
        #expect(try center(renderer, mid.drawList).isClose(to: RGBA(128, 0, 128), tolerance: 2))
        _ = driver.frame(applying: [], at: 2.5)
        #expect(driver.builder.images["red"] == nil, "freed once no fade uses it")
    }

    @Test func clearingContentsIsImmediateAndEndsAFade() throws {
        var (model, driver) = try start()
        let renderer = try makeRenderer(width: 32, height: 32)
        _ = try change(&model, &driver, disableActions: false)
        let packet = try model.validate(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(duration: 1, timingFunction: .linear)),
            .set(1, keyPath: "contents", value: .string(""))])), at: 1.5)
        let f = driver.frame(applying: [packet], at: 1.5)
        #expect(try center(renderer, f.drawList).isClose(to: RGBA(0, 0, 0), tolerance: 1))
        #expect(!driver.needsFrame(pending: false))
    }
}
