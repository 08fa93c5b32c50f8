import Foundation
import Lamina
import LaminaFrame
import LaminaGeometry
import LaminaPNG
import LaminaRender
import Testing
import TestSupport
import LaminaSceneTree

/// Scene files through the whole path a user's scene takes — `Scene` → layer tree →
/// presentation → draw list → Vulkan (lavapipe) — as `laminactl render` does, against
/// references drawn by an independent renderer: `scripts/scene-cairo` reads the same scene
/// files with its own reading of Core Animation's model and draws them with cairo.
///
/// Each scene (`Scenes/NAME.json`) covers one group of visuals; its reference is
/// `Scenes/References/NAME.png`. A failure writes `NAME-actual.png` and `NAME-diff.png` there.
///
/// The rule, unless a scene states its own: mean absolute channel error ≤ 1/255 and at most
/// 0.5 % of pixels off by more than 48/255. Lamina's analytic one-pixel coverage ramps and
/// cairo's exact-area coverage differ by up to about a third of a pixel on every edge, so
/// edge pixels differ by tens of levels while interiors match; a misplaced, missing or
/// wrongly colored shape moves hundreds of pixels by far more.
@Suite("Scene files against cairo")
struct SceneGoldenTests {
    static let edges = PixelTolerance.independent(mean: 1, percent: 0.5, threshold: 48)

    /// `frames`: how many times one compositor renders the scene, the automatic raster cache on
    /// when more than one (the last frame's stable costly layers drawn from the cache); the
    /// last frame is compared. Returns the last frame's raster cache statistics.
    @discardableResult
    func check(_ name: String, _ tolerance: PixelTolerance = edges, frames: Int = 1, analyticBlurs: Bool = true,
               masksFromCoverage: Bool = true, plan: ((FramePlan) -> Void)? = nil,
               sourceLocation: SourceLocation = #_sourceLocation) throws -> RasterStats {
        let directory = PixelComparator.referencePath(name).replacingOccurrences(of: "/References/\(name).png", with: "")
            + "/Scenes"
        let scene = try Scene(contentsOfFile: "\(directory)/\(name).json")
        let compositor = try HeadlessCompositor(widthPoints: scene.size.width, heightPoints: scene.size.height,
                                                scale: scene.scale, background: scene.background)
        compositor.rasterizesAutomatically = frames > 1
        compositor.drawsAnalyticBlurs = analyticBlurs
        compositor.drawsMasksFromCoverage = masksFromCoverage
        let presentation = try scene.tree(at: 0).presentation(at: 0)
        for _ in 1..<max(frames, 1) { _ = try compositor.render(presentation) }
        let pixels = try compositor.render(presentation)
        let image = RGBAImage(width: compositor.pixelWidth, height: compositor.pixelHeight, pixels: pixels)
        plan?(compositor.lastPlan)
        try expectMatchesReference(image, "\(directory)/References/\(name).png", tolerance, name: name,
                                   sourceLocation: sourceLocation)
        return compositor.lastRasterStats
    }

    /// The automatic raster cache against the same references: each scene drawn three times
    /// by one compositor with the cache on, the third frame drawing its stable costly layers
    /// (borders, shadows, three or more sublayers) from the cache, whole or in parts, within
    /// the same tolerance as the scene's own test of direct drawing (no looser: the
    /// stricter threshold 16 where that test uses it).
    @Test(arguments: ["corners-border", "shadows", "shadows-nested", "shadows-content", "group-opacity", "group-opacity-off",
                      "clips", "geometry", "scale-2", "gradients", "shapes"])
    func automaticRasterCache(_ name: String) throws {
        let strict: Set = ["shadows", "shadows-content", "scale-2"]
        let tolerance = strict.contains(name) ? PixelTolerance.independent(mean: 1, percent: 0.5, threshold: 16) : Self.edges
        let stats = try check(name, tolerance, frames: 3)
        if ["corners-border", "shadows", "shadows-nested", "shadows-content"].contains(name) {
            #expect(stats.autoEntries > 0, "\(name): nothing cached")
        }
    }

    /// anchorPoint, position, transform (operations and a matrix), sublayerTransform about the
    /// anchor point, zPosition order among siblings, hidden and zero-opacity layers.
    @Test func geometry() throws { try check("geometry") }

    /// cornerRadius, maskedCorners, the border inside the bounds with inner radius
    /// radius − width, a translucent border, a capsule (radius clamped to half the height),
    /// and the border composited above the sublayers and the content (a sublayer across a
    /// translucent border; a clipped gradient layer with a sublayer under its border).
    @Test func cornersAndBorders() throws { try check("corners-border") }

    /// masksToBounds four levels deep, rotated, with rounded corners: each level cuts the
    /// leaf on another side.
    @Test func nestedClips() throws { try check("clips") }

    /// Perspective: a sublayerTransform with perspective over layers turned about y and x and
    /// moved in z by zPosition (nearer is larger; painter's order by zPosition); a layer whose
    /// own transform has perspective, with sublayers flattened into its plane (one raised by
    /// zPosition, one turned about y) as Core Animation flattens them. The reference samples
    /// each pixel 4×4 through the inverse homography (cairo has no projective maps).
    @Test func perspective() throws { try check("perspective") }

    /// shouldRasterize: a card with a border, a blurred shadow and sublayers; a translucent,
    /// turned card whose sublayer reaches past its bounds (composited as one image, at its
    /// opacity); a rasterized layer cut by a rounded masksToBounds superlayer, with a clip of
    /// its own inside; a shape layer. Drawn from the raster cache at scale 2, within the
    /// issue's rule of the cairo reference (which draws them directly).
    @Test func rasterized() throws { try check("rasterize", .independent(mean: 1, percent: 0.5, threshold: 64)) }

    /// rasterizationScale ≠ 1 at scale 1: a translucent bordered card with sublayers and a
    /// shape layer at 0.5 (drawn at half resolution, magnified 2×), a turned card at 0.5, a
    /// card scaled 1.5 at 0.5 (bucket 2^(5/8): about 0.77 pixels a point) and a turned card
    /// with a sublayer at 2 (drawn at twice the resolution, minified). Drawing them directly
    /// instead is off the reference by a mean 2.8/255, 2.4 % of pixels over 64/255. The
    /// reference (scripts/scene-cairo) draws each layer into an image of (drawn scale's 2^(k/8)
    /// bucket × rasterizationScale) pixels per point, pixel edges at whole multiples of 1/s in
    /// the layer's plane, then composites it through the layer's map with bilinear filtering.
    @Test func rasterizationScales() throws {
        try check("rasterize-scale", .independent(mean: 1, percent: 0.5, threshold: 64))
    }

    /// A translucent layer with overlapping sublayers composites as a group; translucent
    /// siblings blend with each other.
    @Test func groupOpacity() throws { try check("group-opacity") }

    /// allowsGroupOpacity false: the layer's background, border and each sublayer drawn at its
    /// opacity apart (overlaps show through), a group nested in such a layer composited at the
    /// product of the opacities, and allowsGroupOpacity true as the default's group.
    @Test func groupOpacityOff() throws { try check("group-opacity-off") }

    /// CALayer.mask: a shape layer's fill as the mask of a layer with a sublayer; a mask with
    /// a translucent background and an opaque sublayer, rotated, on a translucent layer with a
    /// rounded masksToBounds; a mask that has its own mask (nested).
    @Test func masks() throws { try check("masks") }

    /// Masks that are one opaque rounded rect, drawn as a clip of the mask's rounded bounds
    /// (DrawListBuilder.shapeMaskClip) with no offscreen group: a capsule, a circle on a rotated
    /// layer, two rounded corners turned against a bordered layer, a rect past the canvas's
    /// edge, a translucent layer with an overlapping sublayer (still one group at its opacity)
    /// and one without, a layer whose shadow the mask cuts, and a masked layer inside a rounded
    /// masksToBounds. The reference masks each layer's group by the mask layer's drawing
    /// (scripts/scene-cairo).
    @Test func shapeMasks() throws { try check("masks-shapes") }

    /// Gradients and a background masked by one shape layer each, drawn as one item from the
    /// shape's coverage (DrawListBuilder.visitCoverageMasked), with no offscreen pass: a linear
    /// gradient through a filled path with curves and an even-odd hole; a radial one through a
    /// round-capped stroke; a linear one turned and unevenly scaled under a star turned
    /// against it and moved past its bounds; a translucent radial one under a blob moved half
    /// out of its bounds; a rounded background under a filled and stroked disc; six stops in a
    /// rounded masksToBounds under a translucent stroke. The reference masks each layer's
    /// group by the mask layer's drawing (scripts/scene-cairo). With the masks drawn as
    /// offscreen groups (`LAMINA_MASK_COVERAGE=0`'s path), the same rule holds, six masks.
    @Test(arguments: [true, false])
    func gradientMasks(fromCoverage: Bool) throws {
        try check("masks-gradients", masksFromCoverage: fromCoverage) { plan in
            let offscreen = plan.passes.filter { $0.target != .frame }.count
            if fromCoverage {
                #expect(offscreen == 0)
            } else {
                #expect(offscreen > 0)
            }
        }
    }

    /// The same scene drawn both ways, one item each against offscreen mask groups: they
    /// differ by the groups' 8-bit roundings (the gradient rounded in its group's image, then
    /// masked and rounded again) and along the masked layers' edges (a clip's coverage ramp
    /// against a drawn gradient's edge) — measured: mean 0.009/255, 3 % of pixels off at all,
    /// at most 6/255 —, far within cairo's rule: a mask or gradient a pixel out of place would
    /// put hundreds of pixels off by far more than 8/255.
    @Test func gradientMasksAsTheirGroups() throws {
        let directory = PixelComparator.referencePath("masks-gradients")
            .replacingOccurrences(of: "/References/masks-gradients.png", with: "") + "/Scenes"
        let scene = try Scene(contentsOfFile: "\(directory)/masks-gradients.json")
        let presentation = try scene.tree(at: 0).presentation(at: 0)
        func render(_ fromCoverage: Bool) throws -> RGBAImage {
            let compositor = try HeadlessCompositor(widthPoints: scene.size.width, heightPoints: scene.size.height,
                                                    scale: scene.scale, background: scene.background)
            compositor.drawsMasksFromCoverage = fromCoverage
            let pixels = try compositor.render(presentation)
            return RGBAImage(width: compositor.pixelWidth, height: compositor.pixelHeight, pixels: pixels)
        }
        let comparison = PixelComparator.compare(try render(true), try render(false),
                                                 tolerance: .independent(mean: 0.05, percent: 0.5, threshold: 4, max: 8))
        #expect(comparison.passed, "\(comparison)")
    }

    /// compositingFilter: every mode (normal, the 15 W3C blend modes, plusLighter, plusDarker)
    /// on a group of overlapping opaque and translucent sublayers over a gradient with a
    /// translucent band, some at opacity 0.8; a blend inside a translucent superlayer (its
    /// backdrop is the superlayer's own content); a translucent layer blended over the clear
    /// color. The reference paints each group with cairo's operator of the same formula
    /// (OPERATOR_ADD for plusLighter) and computes plusDarker per pixel.
    @Test func blendModes() throws { try check("blend-modes") }

    /// CALayer.filters' color filters, each on a layer with sublayers as one group: saturate,
    /// grayscale, brightness then contrast (clamped between them), invert on a translucent
    /// layer, opacity, a color matrix (channels swapped, an offset, alpha scaled) on a rotated
    /// rounded layer, and a chain whose clamp matters (brightness 2 then 0.5). The reference
    /// computes the CSS / SVG matrices per pixel on unpremultiplied values (scripts/scene-cairo).
    @Test func colorFilters() throws { try check("filters-color") }

    /// CALayer.filters' Gaussian blur (σ = radius in points): a rounded layer with a sublayer,
    /// a rotated translucent one, blur then grayscale, invert then blur (σ 4), and radius 0.
    /// The reference blurs each premultiplied channel with a Gaussian kernel sampled at whole
    /// pixels over ±4σ, zero outside (scripts/scene-cairo); Lamina samples ±⌈3σ⌉ at whole
    /// pixels.
    @Test func blurFilters() throws { try check("filters-blur", .independent(mean: 1, percent: 0.5, threshold: 64)) }

    /// CALayer.backgroundFilters (frosted glass) over striped content: a rounded translucent
    /// panel with a sublayer (blur σ 4), one inside an ancestor's masksToBounds (blur then
    /// saturate 1.8), one at opacity 0.6 (its sublayers a group above the filtered backdrop),
    /// and a rotated one (grayscale then blur). The reference filters what the canvas holds
    /// so far — a blur from the Gaussian's formula over ±4σ, reads clamped at the canvas's
    /// edges — and paints it back inside the rounded bounds and the clips at the layer's
    /// opacity (scripts/scene-cairo).
    @Test func backgroundFilters() throws { try check("backdrop", .independent(mean: 1, percent: 0.5, threshold: 64)) }

    /// Large blurs, done at half size (σ above `FramePlanner.downsampleAbove` device pixels) or
    /// quarter size (above `FramePlanner.quarterAbove`):
    /// background filters of σ 24 (a rounded panel) and 48 points (a full-width strip at the
    /// canvas's edge: reads clamped there), a filter of σ 24 on a layer, and a blurred layer
    /// with masksToBounds, which stays inside its rounded bounds. The reference blurs at full
    /// size by the Gaussian's formula (scripts/scene-cairo).
    @Test func largeAndClippedBlurs() throws {
        try check("filters-large", .independent(mean: 1, percent: 0.5, threshold: 64))
    }

    /// Very large blurs, all at quarter size (σ above `FramePlanner.quarterAbove`, 8 device
    /// pixels): background filters of σ 17 on a rounded panel and σ 64 on a full-width strip at
    /// the canvas's edge, a filter of σ 20 on a layer and one of σ 36 on a rotated layer with a
    /// sublayer. The reference blurs at full size by the Gaussian's formula over ±4σ
    /// (scripts/scene-cairo).
    @Test func veryLargeBlurs() throws {
        try check("filters-huge", .independent(mean: 1, percent: 0.5, threshold: 64))
    }

    /// Blurs just above the downsampling thresholds (`FramePlanner.downsampleAbove` 3 and
    /// `quarterAbove` 8 device pixels: the coarsest half- and quarter-size blurs) on the
    /// hardest content for them — sharp black-and-white stripes 5 and 10 pixels wide and a
    /// checkerboard of 6-pixel squares, whose frequencies a half- or quarter-size image holds
    /// worst: filters of σ 3.01 (half size) on stripes and on checks, σ 8.01 (quarter size) on
    /// stripes, and background filters of σ 3.01 (a rounded panel) and 8.01 over stripes. The
    /// reference blurs at full size by the Gaussian's formula over ±4σ (scripts/scene-cairo).
    @Test func blurThresholds() throws {
        try check("filters-threshold", .independent(mean: 1, percent: 0.5, threshold: 64))
    }

    /// Filter groups that are one blurred rounded rect (DrawListBuilder+AnalyticBlur.swift),
    /// drawn by their closed form with no offscreen image: rects and rounded rects (a capsule,
    /// two rounded corners) turned, translucent (the layer's opacity and its color's alpha),
    /// scaled 1.5 and mirrored, of σ 0.5 to 6 over stripes; and two that stay offscreen groups,
    /// a layer stretched 1.6 × 1 (no similarity: the device-space blur is not the layer's) and
    /// a bordered one. The reference blurs each layer's group in device pixels by the
    /// Gaussian's formula over ±4σ (scripts/scene-cairo). Drawn again with every filter group
    /// offscreen (`drawsAnalyticBlurs` off), which must hold the same rule.
    @Test(arguments: [true, false])
    func analyticBlurs(_ analytic: Bool) throws {
        try check("filters-analytic", .independent(mean: 1, percent: 0.5, threshold: 64), analyticBlurs: analytic)
    }

    /// Many small offscreen groups side by side, which the planner batches into shared images
    /// (FramePlanner's batches): a row of blurred layers of σ 0.5 … 3.2 (two partly off the
    /// canvas), a cluster of overlapping blurred layers, two σ 7 and 9 blurs (at half and quarter size),
    /// capsule-masked layers (translucent masks and layers, one rotated, a circle mask off the
    /// edge), translucent groups holding blurred sublayers and masked layers holding blurred
    /// sublayers (batches at two depths), blurred layers inside a rounded masksToBounds, blur
    /// then grayscale and invert then blur, translucent groups. The reference draws every
    /// group on its own (scripts/scene-cairo).
    @Test func batchedGroups() throws { try check("batched", .independent(mean: 1, percent: 0.5, threshold: 64)) }

    /// Shadows with offset, color, opacity and radius (σ), on a rounded and a rotated layer;
    /// masksToBounds hides the layer's shadow.
    /// Rule: mean ≤ 1/255, ≤ 2 % of pixels off by more than 16/255 — the rounded corner's blur
    /// is an approximation, and cairo's reference samples its kernel at whole pixels.
    @Test func shadows() throws { try check("shadows", .independent(mean: 1, percent: 0.5, threshold: 16)) }

    /// Shape layers: an even-odd star, curves (quadratic, cubic) filled and stroked, round
    /// joins and caps, a dashed ellipse with a phase.
    /// Rule: mean ≤ 1.5/255, ≤ 3 % of pixels off by more than 48/255: the tessellated fringe
    /// reads half a pixel bolder than cairo's exact coverage (LaminaGeometry README), on every
    /// edge of these long outlines (measured 2 % off, all on edges).
    @Test func shapes() throws { try check("shapes") }

    /// strokeStart/strokeEnd as fractions of the path's length: a circle (butt caps, trimmed
    /// by the shader), a curve with round caps, a rect's first half with square caps.
    /// Rule: as `shapes`.
    @Test func strokeTrimming() throws { try check("strokes-trim") }

    /// Two device pixels per point: a bordered card with a shadow, a stroked tick, a rotated
    /// pill — geometry, line widths and blur all scale. Rule: as `shadows`.
    @Test func scaleTwo() throws { try check("scale-2", .independent(mean: 1, percent: 0.5, threshold: 16)) }

    /// Shadows of what the layer draws when it has no shadowPath — a star shape layer, the
    /// sublayers of a layer with no background, a translucent background (half the shadow) —
    /// and of a shadowPath (a triangle) unrelated to the layer's bounds.
    /// Rule: the usual mean and share, with the threshold at 16/255 (blurred edges: a
    /// misplaced shadow moves many pixels by more than that).
    @Test func contentShadows() throws {
        try check("shadows-content", .independent(mean: 1, percent: 0.5, threshold: 16))
    }

    /// Shadows of layers whose sublayers cast shadows: a card whose shadow holds its
    /// sublayers' shadows (a badge's and a star's blurred, a chip's offset below the card, the
    /// chip's own sublayer's), and a translucent group whose shadow holds its rotated
    /// sublayer's. Core Animation blurs the layer's composited alpha, sublayers' shadows
    /// included; left out, the card's shadow lacks them (mean error 1.9/255 here, 1.1 % of
    /// pixels off by more than 48/255).
    @Test func nestedShadows() throws { try check("shadows-nested") }

    /// Axial gradient with three stops and locations on a diagonal; a radial gradient (CA's
    /// ellipse) clipped by rounded masksToBounds; a rotated conic gradient around an
    /// off-centre startPoint with five stops (the reference samples it per pixel: cairo has none).
    @Test func gradients() throws { try check("gradients") }

    /// The seed shapes of issue 15 as path templates (examples/parametric.json's templates,
    /// custom values fixed): evaluated by Lamina on the render side and, for the reference, by
    /// scripts/template_eval.py, the script's own evaluator of the template language.
    /// Rule: as `shapes`.
    @Test func parametricShapes() throws { try check("parametric") }

    /// Replicator layers: a 12-dot spinner (instanceTransform a rotation about the bounds'
    /// centre, instanceAlphaOffset), a 3 × 4 grid (a replicator in a replicator: translations,
    /// red offsets down and blue offsets across multiply, an inner instanceColor with alpha),
    /// and tint maths on a shape (fill and stroke) and a gradient (instanceColor plus offsets
    /// clamped to 0…1, a scaling instanceTransform). The reference draws every instance by hand.
    /// Rule: the independent rule with threshold 64.
    @Test func replicators() throws { try check("replicator", .independent(mean: 1, percent: 0.5, threshold: 64)) }

    /// Replicators with preservesDepth (acting as CATransformLayers): a carousel of three cards
    /// (instanceTransform a turn of 120° about y, the card raised by zPosition 40) and a pair
    /// (instance 1 moved 120 points back), both under a superlayer's perspective. The
    /// instances keep their z through the replicator into the superlayer's 3D space (smaller
    /// when farther) and are drawn back to front by the depth of each sublayer's position —
    /// the front card over the two turned away, instance 0 of the pair over instance 1 though
    /// drawn first. The reference projects every instance by hand (scripts/scene-cairo).
    /// Rule: the independent rule with threshold 64.
    @Test func replicatorsPreservingDepth() throws {
        try check("replicator-depth", .independent(mean: 1, percent: 0.5, threshold: 64))
    }

    /// Emitter layers at local times 2.5 and 1.2 (their timeOffset): confetti from a line
    /// (two cells, one stopped by its duration; ranges of velocity, direction, spin, scale and
    /// color; gravity; alpha fading; oldestLast order) and additive sparks from a circle's
    /// outline over a purple layer. The reference computes the particles from
    /// docs/scene-format.md's formulas and SplitMix64 in Python and draws them with cairo
    /// (the additive group with OPERATOR_ADD).
    @Test func emitters() throws { try check("emitter", .independent(mean: 1, percent: 0.5, threshold: 64)) }

    /// Emitters with preservesDepth under a superlayer's perspective: a fountain thrown towards
    /// the viewer (emissionLatitude 1, backToFront) whose particles grow as they come nearer,
    /// and a floor tilted by rotateX(1) whose particles (unordered) lie in its 3D plane,
    /// smaller farther back, each drawn back to front by its depth in the superlayer's space.
    /// The reference projects each particle's square by hand (scripts/scene-cairo). The
    /// flattened fountain is 3.0/255 off (4.2 % of pixels beyond 64/255); either emitter in
    /// birth order instead of depth order 0.9 % and 2.0 % of pixels.
    /// Rule: the independent rule with threshold 64.
    @Test func emittersPreservingDepth() throws {
        try check("emitter-depth", .independent(mean: 1, percent: 0.5, threshold: 64))
    }

    /// The same scene, seed and time give the same frame bytes, in a compositor that drew
    /// nothing before and in one that drew 25 other times first (no state between frames).
    @Test func emitterFramesAreReproducible() throws {
        let directory = PixelComparator.referencePath("emitter").replacingOccurrences(of: "/References/emitter.png", with: "")
            + "/Scenes"
        let scene = try Scene(contentsOfFile: "\(directory)/emitter.json")
        func compositor() throws -> HeadlessCompositor {
            try HeadlessCompositor(widthPoints: scene.size.width, heightPoints: scene.size.height, scale: scene.scale,
                                   background: scene.background)
        }
        func frame(_ c: HeadlessCompositor, _ t: Double) throws -> [UInt8] {
            try c.render(try scene.tree(at: t).presentation(at: t), at: t)
        }
        let fresh = try compositor(), used = try compositor()
        for i in 0..<25 { _ = try frame(used, Double(i) * 0.173) }
        let a = try frame(fresh, 3.7), b = try frame(used, 3.7)
        #expect(a == b)
        #expect(try frame(fresh, 3.75) != a, "the particles move")
    }
}
