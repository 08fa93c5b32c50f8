#if canImport(Glibc)
import Glibc
#endif
import LaminaPNG

/// Explicit limits for a fuzzy pixel comparison (after chromium's `FuzzyPixelComparator`).
public struct PixelTolerance: Sendable, Hashable {
    /// No channel of any pixel may differ from the reference by more than this (0…255).
    public var maxChannelError: Int
    /// At most this percentage (0…100) of pixels may be "off": differ by more than
    /// `offThreshold` in some channel.
    public var maxPercentOff: Double
    /// A pixel is off when a channel differs by more than this (0: any difference).
    public var offThreshold: Int
    /// Mean absolute channel error over all pixels and channels, in 0…255 units.
    public var maxMeanError: Double

    public init(maxChannelError: Int, maxPercentOff: Double, offThreshold: Int = 0, maxMeanError: Double = .infinity) {
        self.maxChannelError = maxChannelError
        self.maxPercentOff = maxPercentOff
        self.offThreshold = offThreshold
        self.maxMeanError = maxMeanError
    }

    /// The rule for comparing with an independent renderer (cairo): mean error ≤ `mean`/255,
    /// at most `percent` % of pixels off by more than `threshold`/255, none by more than `max`.
    public static func independent(mean: Double, percent: Double, threshold: Int, max: Int = 255) -> PixelTolerance {
        PixelTolerance(maxChannelError: max, maxPercentOff: percent, offThreshold: threshold, maxMeanError: mean)
    }

    /// Identical pixels only.
    public static let exact = PixelTolerance(maxChannelError: 0, maxPercentOff: 0)
}

/// The outcome of comparing two images.
public struct PixelComparison: Sendable, CustomStringConvertible {
    /// Largest difference in any channel of any pixel.
    public var maxChannelError: Int
    /// Pixels with a channel different by more than the tolerance's `offThreshold`.
    public var pixelsOff: Int
    public var pixelCount: Int
    /// Whether the sizes matched (if not, nothing else is meaningful).
    public var sameSize: Bool
    public var tolerance: PixelTolerance
    /// Mean absolute channel error (0…255 units).
    public var meanError: Double = 0

    public var percentOff: Double { pixelCount == 0 ? 0 : 100 * Double(pixelsOff) / Double(pixelCount) }

    public var passed: Bool {
        sameSize && maxChannelError <= tolerance.maxChannelError && percentOff <= tolerance.maxPercentOff
            && meanError <= tolerance.maxMeanError
    }

    public var description: String {
        guard sameSize else { return "image sizes differ" }
        return "max channel error \(maxChannelError) (limit \(tolerance.maxChannelError)), "
            + "\(pixelsOff) of \(pixelCount) pixels off by more than \(tolerance.offThreshold) = \(percentOff)% "
            + "(limit \(tolerance.maxPercentOff)%), mean error \(meanError) (limit \(tolerance.maxMeanError))"
    }
}

public enum PixelComparator {
    /// Compares `actual` with `expected` under `tolerance`.
    public static func compare(_ actual: RGBAImage, _ expected: RGBAImage,
                               tolerance: PixelTolerance) -> PixelComparison {
        guard actual.width == expected.width, actual.height == expected.height else {
            return PixelComparison(maxChannelError: 255, pixelsOff: 0, pixelCount: 0, sameSize: false,
                                   tolerance: tolerance)
        }
        var maxError = 0, off = 0, sum = 0
        for p in 0..<(actual.width * actual.height) {
            var pixelError = 0
            for c in 0..<4 {
                let e = abs(Int(actual.pixels[4 * p + c]) - Int(expected.pixels[4 * p + c]))
                sum += e
                pixelError = max(pixelError, e)
            }
            if pixelError > tolerance.offThreshold { off += 1 }
            maxError = max(maxError, pixelError)
        }
        let count = actual.width * actual.height
        return PixelComparison(maxChannelError: maxError, pixelsOff: off, pixelCount: count,
                               sameSize: true, tolerance: tolerance,
                               meanError: count == 0 ? 0 : Double(sum) / Double(4 * count))
    }

    /// A picture of the differences: matching pixels as a dim gray copy of the reference,
    /// differing ones in red, brighter for larger errors.
    public static func diffImage(_ actual: RGBAImage, _ expected: RGBAImage) -> RGBAImage {
        precondition(actual.width == expected.width && actual.height == expected.height, "diff needs equal sizes")
        var out = [UInt8](repeating: 255, count: actual.pixels.count)
        for p in 0..<(actual.width * actual.height) {
            var error = 0, luma = 0
            for c in 0..<4 {
                error = max(error, abs(Int(actual.pixels[4 * p + c]) - Int(expected.pixels[4 * p + c])))
            }
            for c in 0..<3 { luma += Int(expected.pixels[4 * p + c]) }
            if error == 0 {
                let gray = UInt8(luma / 12)
                out[4 * p] = gray; out[4 * p + 1] = gray; out[4 * p + 2] = gray
            } else {
                out[4 * p] = UInt8(min(255, 128 + error)); out[4 * p + 1] = 0; out[4 * p + 2] = 0
            }
        }
        return RGBAImage(width: actual.width, height: actual.height, pixels: out)
    }

    /// Compares `actual` with the reference PNG at `referencePath`.
    ///
    /// - The reference must have a line in its folder's `manifest.txt` (``ReferenceManifest``).
    /// - With `LAMINA_REGENERATE_REFERENCES=1` in the environment a reference whose maker is
    ///   `lamina` (Lamina's own output) is (re)written from `actual` and the comparison passes;
    ///   look at it before committing. Any other reference is refused with an error: it is drawn
    ///   by an independent renderer, and only that script may write it.
    /// - On failure, writes `<name>-actual.png` and `<name>-diff.png` next to the reference.
    /// - A missing reference fails with a message saying how to create it.
    /// - Parameter regenerate: whether to (re)write the reference instead of comparing; by
    ///   default, whether `LAMINA_REGENERATE_REFERENCES=1` is set.
    public static func compare(_ actual: RGBAImage, referencePath: String, tolerance: PixelTolerance,
                               regenerate: Bool = regenerationRequested) throws -> PixelComparison {
        let slash = referencePath.lastIndex(of: "/")
        let directory = slash.map { String(referencePath[..<$0]) } ?? "."
        let file = slash.map { String(referencePath[referencePath.index(after: $0)...]) } ?? referencePath
        guard let maker = try ReferenceManifest(directory: directory).makers[file] else {
            throw ReferenceError("\(file) has no line in \(directory)/\(ReferenceManifest.fileName): add "
                                 + "\"\(file) \(ReferenceManifest.selfMade)\" for Lamina's own output, or draw it with "
                                 + "an independent renderer's script (which adds its own line)")
        }
        if regenerate {
            guard maker == ReferenceManifest.selfMade else {
                throw ReferenceError("LAMINA_REGENERATE_REFERENCES=1 refuses to overwrite \(referencePath): "
                                     + "it is drawn by \(maker), an independent renderer; rerun \(maker) instead")
            }
            try PNG.write(actual, path: referencePath)
            return compare(actual, actual, tolerance: tolerance)
        }
        let base = referencePath.hasSuffix(".png") ? String(referencePath.dropLast(4)) : referencePath
        guard access(referencePath, R_OK) == 0 else {
            try PNG.write(actual, path: base + "-actual.png")
            let how = maker == ReferenceManifest.selfMade
                ? "rerun with LAMINA_REGENERATE_REFERENCES=1 to create it" : "run \(maker) to draw it"
            throw ReferenceError("no reference at \(referencePath); wrote \(base)-actual.png (\(how))")
        }
        let expected = try PNG.read(path: referencePath)
        let result = compare(actual, expected, tolerance: tolerance)
        // LAMINA_WRITE_ACTUAL=1 keeps the actual and diff images of passing tests too (to look at).
        let keep = getenv("LAMINA_WRITE_ACTUAL").map { String(cString: $0) == "1" } ?? false
        if !result.passed || keep {
            try PNG.write(actual, path: base + "-actual.png")
            if result.sameSize { try PNG.write(diffImage(actual, expected), path: base + "-diff.png") }
        } else {
            unlink(base + "-actual.png")
            unlink(base + "-diff.png")
        }
        return result
    }

    /// Whether `LAMINA_REGENERATE_REFERENCES=1` is in the environment.
    public static var regenerationRequested: Bool {
        getenv("LAMINA_REGENERATE_REFERENCES").map { String(cString: $0) == "1" } ?? false
    }

    /// `<directory of file>/References/<name>.png`, for a test file's `#filePath`.
    public static func referencePath(_ name: String, testFile: String = #filePath) -> String {
        let directory = testFile.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return "\(directory)/References/\(name).png"
    }
}
