#if canImport(Glibc)
import Foundation
import Glibc
#endif
@testable import LaminaAnimation
import LaminaGeometry
import Testing

// "Evaluation allocates nothing" for fixed-size kinds, checked two ways, neither perfect:
//
// 1. Structurally: everything evaluation reads or builds for double/point/size/rect/color
//    and transform key paths is plain data (`_isPOD`: no references, so copying it cannot
//    retain, release or allocate); the curves are reached through uncounted references.
// 2. By measurement: glibc's bytes in use (`malloc_stats`' total; `mallinfo2` is not in
//    the Glibc module) do not grow over 6 × 10⁵ evaluations. This catches memory that
//    evaluation keeps (a cache, a leak), not an allocation freed within the same call —
//    glibc 2.34+ has no malloc hooks to count calls with — and other tests allocate
//    concurrently (render tests, tens of MiB a frame), so it takes the smallest growth of
//    many short rounds: a round is a few milliseconds, and memory kept by evaluation would
//    grow every round, while other tests' noise leaves some round quiet.

@Test func evaluationDataIsPlainData() {
    #expect(_isPOD(VectorValue.self))
    #expect(_isPOD(TransformValue.self))
    #expect(_isPOD(TimingState.self))
    #expect(_isPOD(CompiledAnimation.Node.self))
    #expect(_isPOD(CompiledAnimation.Plan.self))
    #expect(_isPOD(CompiledAnimation.Driver<VectorValue>.self))
    #expect(_isPOD(CompiledAnimation.Driver<TransformValue>.self))
}

#if canImport(Glibc)
// Skipped under a sanitizer (`scripts/sanitize` sets LAMINA_SANITIZER): AddressSanitizer and
// ThreadSanitizer replace malloc, so glibc's counts say nothing of what evaluation keeps.
@Test(.enabled(if: ProcessInfo.processInfo.environment["LAMINA_SANITIZER"] == nil,
               "reads glibc's allocator, which a sanitizer replaces"))
func evaluationKeepsNoMemory() throws {
    let repeating = AnimationTiming(duration: 1.3, timingFunction: .easeInEaseOut, repeatCount: .infinity, autoreverses: true)
    let opacity = try compiled(.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1), timing: repeating)))
    let additive = try compiled(.basic(BasicAnimation(keyPath: "opacity", by: .double(1),
                                                      timing: AnimationTiming(duration: 1, repeatCount: .infinity, additive: true))))
    let position = try compiled(.spring(SpringAnimation(keyPath: "position", from: .point(.zero), to: .point(Point(100, 0)),
                                                        spring: .bouncy, velocity: .point(Point(0, 300)),
                                                        timing: AnimationTiming(repeatCount: .infinity))))
    let color = try compiled(.basic(BasicAnimation(keyPath: "backgroundColor", from: .color(.black),
                                                   to: .color(Color(1, 0.5, 0, 0.5)), timing: repeating)))
    let transform = try compiled(.keyframe(KeyframeAnimation(keyPath: "transform", values: [
        .transform(.identity), .transform(.rotation(1)), .transform(Transform3D.scale(1.5, 1.5).concatenating(.rotation(2))),
    ], timingFunctions: [.easeIn, .easeOut], timing: repeating)))
    let path = try compiled(.keyframe(KeyframeAnimation(keyPath: "position", path: Path([
        .move(.zero), .cubic(Point(50, 0), Point(100, 50), Point(100, 100)), .line(Point(0, 100)), .close,
    ]), calculationMode: .paced, timing: repeating)))

    _ = try #require(mallocBytesInUse(), "malloc_stats could not be read")
    var sink = 0.0
    var smallestGrowth = Int.max
    // The count is the process's: tests running beside this one allocate too. A round that
    // kept nothing shows that evaluation keeps nothing (a leak grows every round by far more
    // than 4 KB), so the rounds go on until one does, up to 400.
    for round in 0..<400 where smallestGrowth > 4096 {
        let before = mallocBytesInUse()
        for k in round * 2_500..<(round + 1) * 2_500 {
            let t = Double(k) / 120
            if case .double(let v)? = opacity.value(forKeyPathAt: 0, at: t, underlying: .double(1)) { sink += v }
            sink += additive.doubleValue(forKeyPathAt: 0, at: t, underlying: 0.5) ?? 0
            sink += position.pointValue(forKeyPathAt: 0, at: t, underlying: .zero)?.x ?? 0
            if case .color(let c)? = color.value(forKeyPathAt: 0, at: t, underlying: .color(.clear)) { sink += c.red }
            sink += transform.transformValue(forKeyPathAt: 0, at: t, underlying: .identity)?.m11 ?? 0
            var v = AnimatableValue.point(.zero)
            if path.apply(forKeyPathAt: 0, at: t, to: &v), case .point(let p) = v { sink += p.y }
        }
        let after = mallocBytesInUse()
        smallestGrowth = min(smallestGrowth, (after ?? 0) - (before ?? 0))
    }
    #expect(sink.isFinite)
    #expect(smallestGrowth <= 4096, "evaluation kept \(smallestGrowth) bytes over 15,000 evaluations")
}

/// glibc's total bytes in use, from `malloc_stats` (which prints to stderr: captured through
/// a pipe), or nil when it is not available.
private func mallocBytesInUse() -> Int? {
    guard let symbol = dlsym(nil, "malloc_stats") else { return nil }
    let mallocStats = unsafeBitCast(symbol, to: (@convention(c) () -> Void).self)
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return nil }
    fflush(nil)
    let saved = dup(2)
    dup2(fds[1], 2)
    mallocStats()
    fflush(nil)
    dup2(saved, 2)
    close(saved)
    close(fds[1])
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(fds[0], &buffer, buffer.count)
        if n <= 0 { break }
        bytes += buffer[..<n]
    }
    close(fds[0])
    // "Total (incl. mmap):" is followed by "system bytes = …" and "in use bytes = …".
    let text = String(decoding: bytes, as: UTF8.self)
    guard let total = text.range(of: "Total (incl. mmap):") else { return nil }
    for line in text[total.upperBound...].split(separator: "\n") where line.contains("in use bytes") {
        return line.split(separator: "=").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }
    return nil
}
#endif
