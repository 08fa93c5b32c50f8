import LaminaModel
import Testing

/// The color filters' matrices against CSS Filter Effects Level 1 (§ "Supported filter
/// functions" and their shorthand equivalents) and SVG `feColorMatrix` / `feComponentTransfer`,
/// worked out by hand from those definitions.
@Suite struct FilterMatrixTests {
    func close(_ a: (Double, Double, Double, Double), _ b: (Double, Double, Double, Double),
               _ tolerance: Double = 1e-9) -> Bool {
        abs(a.0 - b.0) <= tolerance && abs(a.1 - b.1) <= tolerance && abs(a.2 - b.2) <= tolerance
            && abs(a.3 - b.3) <= tolerance
    }
    func filter(_ kind: LayerFilter.Kind, _ amount: Double) -> LayerFilter { LayerFilter(kind: kind, amount: amount) }

    @Test func grayscaleUsesTheSpecsLuminanceCoefficients() {
        // grayscale(1): every channel the luminance 0.2126 R + 0.7152 G + 0.0722 B.
        #expect(close(filter(.grayscale, 1).apply((1, 0, 0, 1)), (0.2126, 0.2126, 0.2126, 1)))
        #expect(close(filter(.grayscale, 1).apply((0, 1, 0, 0.5)), (0.7152, 0.7152, 0.7152, 0.5)))
        #expect(close(filter(.grayscale, 1).apply((0, 0, 1, 1)), (0.0722, 0.0722, 0.0722, 1)))
        // grayscale(0.5) of red: R = 0.2126 + 0.7874 × 0.5, G = B = 0.2126 − 0.2126 × 0.5.
        #expect(close(filter(.grayscale, 0.5).apply((1, 0, 0, 1)), (0.6063, 0.1063, 0.1063, 1)))
        // Amounts above 1 are 1; 0 is the identity.
        #expect(filter(.grayscale, 3).colorMatrix == filter(.grayscale, 1).colorMatrix)
        #expect(close(filter(.grayscale, 0).apply((0.3, 0.6, 0.9, 0.4)), (0.3, 0.6, 0.9, 0.4)))
    }

    @Test func saturateIsFeColorMatrixSaturate() {
        // saturate(0): SVG's three-digit luminance 0.213, 0.715, 0.072.
        #expect(close(filter(.saturate, 0).apply((0, 1, 0, 1)), (0.715, 0.715, 0.715, 1)))
        #expect(close(filter(.saturate, 1).apply((0.3, 0.6, 0.9, 0.4)), (0.3, 0.6, 0.9, 0.4)))
        // saturate(2) of (0.5, 0.25, 0.25): R = (0.213+1.574)·0.5 + (0.715−1.43)·0.25 + (0.072−0.144)·0.25,
        // B = (0.213−0.426)·0.5 + (0.715−1.43)·0.25 + (0.072+1.856)·0.25.
        let r = 1.787 * 0.5 - 0.715 * 0.25 - 0.072 * 0.25
        let g = -0.213 * 0.5 + 1.285 * 0.25 - 0.072 * 0.25
        let b = -0.213 * 0.5 - 0.715 * 0.25 + 1.928 * 0.25
        #expect(close(filter(.saturate, 2).apply((0.5, 0.25, 0.25, 1)), (r, g, b, 1)))
    }

    @Test func brightnessContrastInvertOpacityAreTransferFunctions() {
        #expect(close(filter(.brightness, 0.5).apply((0.8, 0.4, 0.2, 0.6)), (0.4, 0.2, 0.1, 0.6)))
        #expect(close(filter(.brightness, 2).apply((0.8, 0.4, 0.2, 1)), (1, 0.8, 0.4, 1)))  // clamped
        // contrast(a): slope a, intercept 0.5 − 0.5a.
        #expect(close(filter(.contrast, 0).apply((0.1, 0.9, 0.3, 1)), (0.5, 0.5, 0.5, 1)))
        #expect(close(filter(.contrast, 2).apply((0.25, 0.75, 0.5, 1)), (0, 1, 0.5, 1)))
        // invert(a): table [a, 1 − a].
        #expect(close(filter(.invert, 1).apply((0.2, 0.4, 0.6, 0.7)), (0.8, 0.6, 0.4, 0.7)))
        #expect(close(filter(.invert, 0.5).apply((0.2, 0.9, 0, 1)), (0.5, 0.5, 0.5, 1)))
        #expect(close(filter(.invert, 0.25).apply((1, 0, 0.5, 1)), (0.75, 0.25, 0.5, 1)))
        // opacity(a): alpha table [0, a].
        #expect(close(filter(.opacity, 0.25).apply((0.2, 0.4, 0.6, 0.8)), (0.2, 0.4, 0.6, 0.2)))
        #expect(filter(.opacity, 7).colorMatrix == filter(.opacity, 1).colorMatrix)
    }

    @Test func colorMatrixIsRowByRow() {
        // Swap red and blue, halve alpha, add 0.1 to green.
        let m: [Double] = [0, 0, 1, 0, 0, 0, 1, 0, 0, 0.1, 1, 0, 0, 0, 0, 0, 0, 0, 0.5, 0]
        let f = LayerFilter(kind: .colorMatrix, matrix: m)
        #expect(close(f.apply((0.2, 0.3, 0.9, 0.8)), (0.9, 0.4, 0.2, 0.4)))
        #expect(LayerFilter.gaussianBlur(4).colorMatrix == nil)
    }

    @Test func invalidFiltersAreNamed() {
        #expect(LayerFilter(kind: .colorMatrix, matrix: [1, 2]).problem != nil)
        #expect(LayerFilter.gaussianBlur(-1).problem != nil)
        #expect(LayerFilter.gaussianBlur(.nan).problem != nil)
        #expect(filter(.brightness, -0.5).problem != nil)
        #expect(LayerFilter.problem([.gaussianBlur(1, name: "a"), .gaussianBlur(2, name: "a")]) != nil)
        #expect(LayerFilter.problem([.gaussianBlur(1, name: "a"), .gaussianBlur(2, name: "b"), filter(.invert, 1)]) == nil)
        #expect(LayerFilter.reach([.gaussianBlur(2), filter(.invert, 1), .gaussianBlur(1.5)]) == 10.5)
    }
}
