import Foundation
import Testing
import LaminaAnimation
@testable import LaminaFrame
import LaminaGeometry
import LaminaTree
import TestSupport
@testable import LaminaRender
import LaminaModel

/// The driver profile (`DriverProfile`): chosen from the device, every switch changes how a
/// frame is made and what memory is kept, never what is drawn.
@Suite("Driver profile")
struct DriverProfileTests {
    static let size = 64

    /// A CPU device (lavapipe) gets `cpuRasterizer` (today's behaviour: the late scene release
    /// made), any other device `gpu` (none of lavapipe's workarounds).
    @Test func theProfileFollowsTheDevice() throws {
        let renderer = try makeRenderer(width: 8, height: 8)
        #expect(renderer.driverProfile == (renderer.isSoftwareDevice ? .cpuRasterizer : .gpu))
        #expect((renderer.scratch != nil) == renderer.driverProfile.releasesDriverScratch)
        #expect(DriverProfile.cpuRasterizer.keptFreedHeap == 64 << 20)
        #expect(DriverProfile.gpu.keptFreedHeap == nil)
        #expect(DriverProfile.named("gpu") == .gpu && DriverProfile.named("cpuRasterizer") == .cpuRasterizer)
        #expect(DriverProfile.named("lavapipe") == nil)
    }

    /// A renderer whose profile keeps freed heap leaves glibc's trim threshold alone in a
    /// process whose executable adopted no policy (this test process, as any library's user):
    /// the allocator policy is the executables' (`HeapTrim.adopt`).
    @Test func aLibraryLeavesTheTrimThresholdAlone() throws {
        let renderer = try OffscreenRenderer(width: 8, height: 8, validation: true, profile: .cpuRasterizer)
        #expect(renderer.driverProfile.keptFreedHeap != nil)
        #expect(HeapTrim.keptFreedHeap == nil)
        try renderer.releaseDriverFrameMemory()
        #expect(HeapTrim.keptFreedHeap == nil)
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }

    /// The `gpu` profile on lavapipe: no scratch for the late scene release (the release does
    /// nothing), and the same pixels as a fresh renderer of the device's own profile.
    @Test func theGPUProfileDrawsTheSame() throws {
        setenv("LAMINA_VALIDATION", "1", 1)
        let renderer = try OffscreenRenderer(width: Self.size, height: Self.size, profile: .gpu)
        #expect(renderer.scratch == nil)
        for shift in [0.0, 2.0] {
            let list = DriverScratchTests.list(600, shift: shift)
            let small = DrawList(width: Self.size, height: Self.size, clearColor: list.clearColor, items: list.items)
            try renderer.render(small)
            try renderer.releaseIdleBuffers()
            try renderer.releaseDriverFrameMemory()
            #expect(try renderer.readPixels() == (try renderImage(small).pixels))
        }
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }

    /// `FrameDriver.adopt`: the atlas is used when asked for (the viewer's wireframe asks not)
    /// and the profile allows it; `usesShapeAtlas` reads what was asked.
    @Test func theFrameDriverTakesTheFrameSwitches() {
        var driver = FrameDriver(widthPoints: 16, heightPoints: 16, scale: 1, background: .black, targetFPS: 60)
        #expect(driver.builder.usesShapeAtlas && driver.builder.prefetches && driver.tree.prefetches)
        driver.adopt(.gpu)
        #expect(driver.usesShapeAtlas)
        #expect(!driver.builder.usesShapeAtlas)
        #expect(!driver.builder.prefetches && !driver.tree.prefetches)
        driver.usesShapeAtlas = false
        driver.adopt(.cpuRasterizer)
        #expect(!driver.usesShapeAtlas && !driver.builder.usesShapeAtlas)
        #expect(driver.builder.prefetches && driver.tree.prefetches)
        driver.usesShapeAtlas = true
        #expect(driver.builder.usesShapeAtlas)
    }

    /// Prefetching changes no value: animated layers (their fast runs, and moves replayed by
    /// the builder) give the same pixels, frame by frame, with and without it.
    @Test func prefetchingChangesNothingDrawn() throws {
        var model = ModelTree()
        func driver(prefetching: Bool) -> FrameDriver {
            var d = FrameDriver(widthPoints: Double(Self.size), heightPoints: Double(Self.size), scale: 1,
                                background: Color(0.1, 0.1, 0.1), targetFPS: 60)
            d.prefetches = prefetching
            return d
        }
        var on = driver(prefetching: true), off = driver(prefetching: false)
        var ops: [LayerChange] = [.create(1000, .layer), .addSublayer(parent: 0, child: 1000),
                                           .set(1000, keyPath: "bounds", value: .rect(Rect(0, 0, 64, 64))),
                                           .set(1000, keyPath: "position", value: .point(Point(32, 32)))]
        for id in UInt32(1)...UInt32(300) {
            let x = Double(id % 20) * 3, y = Double(id / 20) * 4
            ops += [.create(id, .layer), .addSublayer(parent: 1000, child: id),
                    .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, 3, 2))),
                    .set(id, keyPath: "position", value: .point(Point(x, y))),
                    .set(id, keyPath: "backgroundColor", value: .color(Color(Double(id % 7) / 7, 0.6, 0.9))),
                    .addAnimation(id, key: "slide", animation: .basic(BasicAnimation(
                        keyPath: "position.x", from: .double(x), to: .double(x + 9),
                        timing: AnimationTiming(duration: 1.5, repeatCount: 10)))),
                    .addAnimation(id, key: "spin", animation: .basic(BasicAnimation(
                        keyPath: "transform.rotation.z", from: .double(0), to: .double(Double(id % 5)),
                        timing: AnimationTiming(duration: 2, repeatCount: 10)))),
                    .addAnimation(id, key: "fade", animation: .basic(BasicAnimation(
                        keyPath: "opacity", from: .double(1), to: .double(0.4),
                        timing: AnimationTiming(duration: 0.7, repeatCount: 10, autoreverses: true))))]
        }
        var pending = [try model.validate(Commit(client: 1, content: .connect), at: 0),
                       try model.validate(Commit(client: 1, content: .operations(ops)), at: 0)]
        let a = try makeRenderer(width: Self.size, height: Self.size)
        let b = try makeRenderer(width: Self.size, height: Self.size)
        var moved = 0
        for frame in 0..<12 {
            let t = Double(frame) * 0.06
            try a.render(on.frame(applying: pending, at: t).drawList)
            try b.render(off.frame(applying: pending, at: t).drawList)
            moved += on.builder.patcher.moved
            pending = []
            #expect(try a.readPixels() == (try b.readPixels()), "frame \(frame)")
        }
        #expect(moved > 0, "no frame moved layers in place")
        #expect(a.validationMessages.isEmpty && b.validationMessages.isEmpty)
    }
}
