import Testing
import LaminaGeometry
import LaminaImage
@testable import LaminaFrame

/// The `.image` case of `RectInstance.write`, by hand: a nine-slice at the identity on a
/// 100 × 100 target, where one local unit is one pixel, so the anti-aliasing margin is 1.
@Suite struct ImageInstanceTests {
    static func write(_ item: DrawItem, clipCount: Int = 0) -> ([RectInstance], RectInstance.Written) {
        let buffer = UnsafeMutablePointer<RectInstance>.allocate(capacity: 16)
        defer { buffer.deallocate() }
        var span = RectInstance.Span(base: buffer, capacity: 16)
        var item = item
        let written = RectInstance.write(&item, clipCount: clipCount, width: 100, height: 100, to: &span)
        return (Array(UnsafeBufferPointer(start: buffer, count: span.count)), written)
    }

    static func nineSlice(opacity: Double = 1, clip: Int = -1) throws -> DrawItem {
        // 40 × 20 pixels, centre (0.25, 0.25, 0.5, 0.5), bounds (10, 20, 100, 50): x cuts 10, 20,
        // 100, 110; y cuts 20, 25, 65, 70 (ContentsGeometryTests.nineSlice).
        let image = try ImageDecoder.raw([UInt8](repeating: 0, count: 40 * 20 * 4), width: 40, height: 20)
        let geometry = try #require(ContentsGeometry(bounds: Rect(10, 20, 100, 50), imageWidth: 40, imageHeight: 20,
                                                     gravity: .resize, contentsRect: Rect(0, 0, 1, 1),
                                                     contentsCenter: Rect(0.25, 0.25, 0.5, 0.5), contentsScale: 1))
        return DrawItem(bounds: .zero, backgroundColor: .clear, opacity: opacity,
                        kind: .image(ImageDraw(image: image, geometry: geometry)), clip: clip)
    }

    @Test func ninePiecesGrownOnlyOnTheFramesEdges() throws {
        let (instances, written) = Self.write(try Self.nineSlice(opacity: 0.5, clip: 0), clipCount: 1)
        // At the identity (affine): the lean pipeline, kind 12.
        #expect(written == .drawn(count: 9, variant: PipelineVariant(kind: .imageSharp, clipped: true)))
        let x: [Float] = [10, 20, 100, 110], y: [Float] = [20, 25, 65, 70], u: [Float] = [0, 0.25, 0.75, 1]
        for j in 0..<3 {
            for i in 0..<3 {
                let instance = instances[j * 3 + i]
                #expect(instance.gradientPoints == SIMD4(x[i], y[j], x[i + 1], y[j + 1]))
                #expect(instance.gradientLocations == SIMD4(u[i], u[j], u[i + 1], u[j + 1]))
                // Grown by 1 pixel where the piece is on the frame's edge, else exactly the piece:
                // the piece, the sides to grow, and margins of 1 (the vertex shader grows it).
                #expect(instance.cover == SIMD4(x[i], y[j], x[i + 1], y[j + 1]))
                #expect(instance.radii == SIMD4(i == 0 ? 1 : 0, j == 0 ? 1 : 0, i == 2 ? 1 : 0, j == 2 ? 1 : 0))
                #expect(instance.clipX.w == 1 && instance.clipY.w == 1)
                #expect(instance.bounds == SIMD4(10, 20, 110, 70))  // the whole frame's edges are anti-aliased
                // Premultiplied texels × the opacity (which the vertex shader applies).
                #expect(instance.fillColor == SIMD4(repeating: 1) && instance.clipW.w == 0.5)
                #expect(instance.params == SIMD4(0, RectInstance.Kind.imageSharp.rawValue, 0, 1))
            }
        }
    }

    /// The lean pipeline (`.imageSharp`: interpolated texture position and edge distances) only
    /// where both are affine in screen space; under perspective the general one (`.image`),
    /// with the same instances but for the kind.
    @Test func perspectiveKeepsTheGeneralPipeline() throws {
        var item = try Self.nineSlice(clip: 0)
        let affine = Transform3D.rotation(0.3).concatenating(.scale(0.5, 0.7)).concatenating(.translation(20, 10))
        item.transform = affine
        let (leanInstances, lean) = Self.write(item, clipCount: 1)
        #expect(lean == .drawn(count: 9, variant: PipelineVariant(kind: .imageSharp, clipped: true)))
        var tilted = affine
        tilted.m14 = 0.0005
        item.transform = tilted
        let (generalInstances, general) = Self.write(item, clipCount: 1)
        #expect(general == .drawn(count: 9, variant: PipelineVariant(kind: .image, clipped: true)))
        #expect(generalInstances.allSatisfy { $0.params.y == RectInstance.Kind.image.rawValue })
        #expect(leanInstances.allSatisfy { $0.params.y == RectInstance.Kind.imageSharp.rawValue })
        #expect(zip(leanInstances, generalInstances).allSatisfy { $0.gradientLocations == $1.gradientLocations && $0.cover == $1.cover })
    }

    @Test func transparentOrRoomlessDrawsNothing() throws {
        #expect(Self.write(try Self.nineSlice(opacity: 0)).1 == .nothing)
        var item = try Self.nineSlice()
        let buffer = UnsafeMutablePointer<RectInstance>.allocate(capacity: 4)
        defer { buffer.deallocate() }
        var span = RectInstance.Span(base: buffer, capacity: 4)
        #expect(RectInstance.write(&item, clipCount: 0, width: 100, height: 100, to: &span) == .needsRoom(9))
        #expect(span.count == 0)
    }

    @Test func coverageModeTakesTheColor() throws {
        var item = try Self.nineSlice(opacity: 0.5)
        guard case .image(var draw) = item.kind else { return }
        draw.mode = .coverage(Color(1, 0.5, 0, 1))
        item.kind = .image(draw)
        let (instances, _) = Self.write(item)
        #expect(instances.allSatisfy { $0.fillColor * $0.clipW.w == SIMD4(0.5, 0.25, 0, 0.5) && $0.params.z == 1 })
    }
}
