/// A small deterministic random number generator (SplitMix64), for seeded test inputs and
/// fuzzing that must repeat exactly, so that a failure reproduces. Not for anything secret.
/// (lamina-bench has its own copy, `BenchRandom`: a product does not link test support.)
public struct SeededRandom: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform Double in [a, b), from the top 53 bits.
    public mutating func uniform(_ a: Double, _ b: Double) -> Double {
        a + (b - a) * Double(next() >> 11) / Double(UInt64(1) << 53)
    }

    /// A uniform Int in [0, n); 0 when n ≤ 0.
    public mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }

    /// A uniform Double in `range` (`uniform(lower, upper)`).
    public mutating func double(_ range: ClosedRange<Double>) -> Double { uniform(range.lowerBound, range.upperBound) }

    /// A uniform Int in `range`, which must not be empty.
    public mutating func int(_ range: Range<Int>) -> Int { range.lowerBound + below(range.count) }

    /// True with `probability`.
    public mutating func bool(_ probability: Double) -> Bool { uniform(0, 1) < probability }
}
