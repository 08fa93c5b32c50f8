import CVulkan
#if canImport(Glibc)
import Glibc
#endif
import LaminaFrame
import Testing
import LaminaGeometry
import LaminaPNG
import TestSupport
@testable import LaminaRender

@Suite("OffscreenRenderer")
struct OffscreenRendererTests {
    /// Many frames through both slots: the instance ring grows, the target resizes (by the
    /// list's size and explicitly), GPU times arrive, nothing leaks and validation stays quiet.
    @Test func framesResizeRingGrowthAndTimings() throws {
        let log: ValidationLog
        do {
            let renderer = try makeRenderer(width: 32, height: 32)
            log = renderer.validationLog
            func grid(_ n: Int, width: Int, height: Int) -> DrawList {
                var items: [DrawItem] = [DrawItem(bounds: Rect(0, 0, 8, 8), backgroundColor: red)]
                for i in 0..<n {
                    items.append(DrawItem(bounds: Rect(Double(8 + i % 20), Double(8 + i / 20 % 20), 1, 1),
                                          backgroundColor: green))
                }
                return DrawList(width: width, height: height, clearColor: blue, items: items)
            }
            var timings: [FrameTiming] = []
            for _ in 0..<3 { timings.append(try renderer.render(grid(2, width: 32, height: 32))) }
            // 300 instances: more than the initial ring of 64.
            // Both slots grow; the old buffers are freed once their slot comes round again.
            for _ in 0..<5 { timings.append(try renderer.render(grid(300, width: 32, height: 32))) }
            let live = renderer.liveObjectCount
            for _ in 0..<8 { timings.append(try renderer.render(grid(300, width: 32, height: 32))) }
            #expect(renderer.liveObjectCount == live, "objects leak per frame")
            var image = RGBAImage(width: 32, height: 32, pixels: try renderer.readPixels())
            expectPixel(image, 2, 2, RGBA(255, 0, 0))
            expectPixel(image, 8, 8, RGBA(0, 255, 0))
            expectPixel(image, 30, 30, RGBA(0, 0, 255))

            #expect(timings.map(\.frameNumber) == Array(1...16).map(UInt64.init))
            if renderer.hasGPUTimestamps {
                #expect(timings[2].gpu != nil && timings[2].gpuFrameNumber == 1)
                #expect(timings.last?.gpu != nil)
                #expect(renderer.latestGPUTime?.frame == 16)
            }

            // Resize through the list's size…
            try renderer.render(grid(2, width: 48, height: 40))
            #expect(renderer.width == 48 && renderer.height == 40)
            image = RGBAImage(width: 48, height: 40, pixels: try renderer.readPixels())
            expectPixel(image, 2, 2, RGBA(255, 0, 0))
            expectPixel(image, 47, 39, RGBA(0, 0, 255))
            // … and explicitly.
            try renderer.resize(width: 20, height: 24)
            try renderer.render(grid(0, width: 20, height: 24))
            image = RGBAImage(width: 20, height: 24, pixels: try renderer.readPixels())
            expectPixel(image, 7, 7, RGBA(255, 0, 0))
            expectPixel(image, 19, 23, RGBA(0, 0, 255))
            #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
        }
        #expect(log.messages.isEmpty, "\(log.messages)")
    }

    /// The error the daemon prints when there is no Vulkan device names the package to install.
    @Test func noDeviceMessageNamesThePackage() {
        #expect(RenderError.noDevice(RenderError.installHint).description.contains("mesa-vulkan-drivers"))
    }

    /// With no Vulkan driver visible to the loader (in a child process, so other tests keep
    /// theirs), creating a renderer fails with that message.
    @Test func noDriverFailsWithInstallHint() async {
        await #expect(processExitsWith: .success) {
            setenv("VK_ICD_FILENAMES", "/nonexistent/lamina-no-driver.json", 1)
            setenv("VK_DRIVER_FILES", "/nonexistent/lamina-no-driver.json", 1)
            do {
                _ = try OffscreenRenderer(width: 4, height: 4, validation: false)
                exit(1)
            } catch {
                exit("\(error)".contains("mesa-vulkan-drivers") ? 0 : 2)
            }
        }
    }

    /// `VkResult` is mapped once into the closed error enum.
    @Test func vulkanErrorMapping() {
        #expect(VulkanError(VK_ERROR_OUT_OF_HOST_MEMORY) == .outOfMemory)
        #expect(VulkanError(VK_ERROR_OUT_OF_DEVICE_MEMORY) == .outOfMemory)
        #expect(VulkanError(VK_ERROR_DEVICE_LOST) == .deviceLost)
        #expect(VulkanError(VK_ERROR_OUT_OF_DATE_KHR) == .surfaceOutOfDate)
        #expect(VulkanError(VK_ERROR_FEATURE_NOT_PRESENT) == .unexpected(VK_ERROR_FEATURE_NOT_PRESENT.rawValue))
    }

    /// The ring is reserved for one instance per item; long gradients (a chunk per three stops)
    /// overflow it mid-frame, so it grows with the frame's first instances copied over: the
    /// frame that grew it draws what a frame with a large enough ring draws.
    @Test func ringGrowsMidFrame() throws {
        let renderer = try makeRenderer(width: 40, height: 40)
        let colors = (0..<13).map { Color(Double($0 % 2), Double($0) / 12, 0.5) }  // four chunks each
        let items = (0..<100).map { i in
            DrawItem(bounds: Rect(Double(i % 10) * 4, Double(i / 10) * 4, 4, 4), backgroundColor: red,
                     kind: .gradient(GradientFill(type: .axial, start: Point(0, 0), end: Point(4, 4), colors: colors)))
        }
        let list = DrawList(width: 40, height: 40, clearColor: blue, items: items)
        try renderer.render(list)
        let grown = try renderer.readPixels()
        try renderer.render(list)
        try renderer.render(list)  // slot 0 again, its ring already large enough
        #expect(try renderer.readPixels() == grown)
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }

    /// Items that cannot be seen produce no instance: empty bounds, zero opacity, edge-on.
    @Test func invisibleItemsAreCulled() {
        func instances(_ item: DrawItem) -> [RectInstance] {
            var item = item
            var storage = [RectInstance](repeating: RectInstance(), count: 4)
            return storage.withUnsafeMutableBufferPointer { buffer in
                var span = RectInstance.Span(base: buffer.baseAddress!, capacity: buffer.count)
                _ = RectInstance.write(&item, clipCount: 0, width: 8, height: 8, to: &span)
                return Array(buffer.prefix(span.count))
            }
        }
        #expect(instances(DrawItem(bounds: Rect(0, 0, 0, 10), backgroundColor: red)).isEmpty)
        #expect(instances(DrawItem(bounds: Rect(0, 0, 4, 4), backgroundColor: red, opacity: 0)).isEmpty)
        #expect(instances(DrawItem(transform: .rotation(.pi / 2, 0, 1, 0), bounds: Rect(0, 0, 4, 4),
                                   backgroundColor: red)).isEmpty)
        #expect(instances(DrawItem(bounds: Rect(4, 4, -4, -4), backgroundColor: red)).map(\.bounds) == [SIMD4(0, 0, 4, 4)])
    }
}
