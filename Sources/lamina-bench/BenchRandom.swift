/// The benchmark inputs' deterministic generator (SplitMix64), so that every run and every
/// recorded figure measures the same paths. The tests' `SeededRandom` (Tests/TestSupport) is
/// the same generator; the bench keeps its own because a product does not link test support.
struct BenchRandom {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform Double in [a, b), from the top 53 bits.
    mutating func uniform(_ a: Double, _ b: Double) -> Double {
        a + (b - a) * Double(next() >> 11) / Double(UInt64(1) << 53)
    }
}
