import Foundation
import LaminaGeometry
import LaminaText

/// `lamina-bench text`: LaminaText's CPU costs, as JSON (thread CPU time).
///
/// - `glyphsPerSecond`: shaping and layout (bidi, itemization, fallback, HarfBuzz, line
///   breaking, alignment) of 200 wrapped paragraphs (Latin, Hebrew, Arabic and mixed), glyphs
///   laid out per second of CPU time; `layoutsPerSecond` the same per paragraph.
/// - `atlasColdMs`, `atlasBytes`: rasterizing every glyph of those layouts once into a fresh
///   atlas at scale 1 (FreeType, unhinted), and the bytes its dirty rectangles upload.
/// - `scaleStepMs`, `scaleStepBytes`: one frame of a layer scale animation (1× to 2× over 60
///   frames, so a new size bucket nearly every frame): re-rasterizing one 40-glyph label at
///   its new size, per frame, and the bytes uploaded.
/// - `warmQuadsNsPerGlyph`: quads for already-rasterized glyphs (the per-frame cost of text
///   that does not change size).
func runTextBench(_ arguments: [String]) {
    func cpuNow() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
    let engine = TextLayoutEngine()
    let samples = [
        "Core Animation lays text out in its layer's bounds; lines wrap at word boundaries, kerning AV Ta.",
        "שלום עולם, זהו טקסט ארוך שנשבר לשורות רבות בתוך הגבולות של השכבה.",
        "مرحبا بالعالم، هذا نص طويل ينكسر إلى عدة أسطر داخل حدود الطبقة.",
        "Mixed: the word עברית and العربية inside an English sentence, 123 times.",
    ]
    let style = TextStyle(fontSize: 16, isWrapped: true)
    var layouts: [TextLayout] = []
    var glyphCount = 0
    // Warm the font caches (fontconfig sort, faces) outside the measurement.
    for s in samples { _ = engine.layout(AttributedText(s), style: style, bounds: Size(240, 400)) }
    var best = Double.infinity
    for _ in 0..<3 {
        layouts.removeAll()
        glyphCount = 0
        let t0 = cpuNow()
        for i in 0..<200 {
            let layout = engine.layout(AttributedText(samples[i % samples.count]), style: style,
                                       bounds: Size(200 + Double(i % 5) * 20, 400))
            glyphCount += layout.glyphs.count
            layouts.append(layout)
        }
        best = min(best, Double(cpuNow() - t0) / 1e9)
    }
    let atlas = GlyphAtlas(fonts: engine.fonts)
    atlas.beginFrame()
    let a0 = cpuNow()
    for layout in layouts { _ = layout.quads(scale: 1, atlas: atlas) }
    let coldMs = Double(cpuNow() - a0) / 1e6
    let coldBytes = atlas.takeDirtyRects().reduce(0) { $0 + $1.width * $1.height }

    let w0 = cpuNow()
    var quadCount = 0
    for _ in 0..<10 { for layout in layouts { quadCount += layout.quads(scale: 1, atlas: atlas).count } }
    let warmNs = Double(cpuNow() - w0) / Double(max(1, quadCount))

    let label = engine.layout("Scale me smoothly: 40 glyphs of a label!", style: TextStyle(fontSize: 18),
                              bounds: Size(600, 40))
    var stepNs: UInt64 = 0, stepBytes = 0
    for frame in 0..<60 {
        atlas.beginFrame()
        let scale = 1 + Double(frame) / 59
        let t0 = cpuNow()
        _ = label.quads(scale: scale, atlas: atlas)
        stepNs += cpuNow() - t0
        stepBytes += atlas.takeDirtyRects().reduce(0) { $0 + $1.width * $1.height }
    }
    let json: [(String, Double)] = [
        ("glyphsPerSecond", Double(glyphCount) / best),
        ("layoutsPerSecond", 200 / best),
        ("atlasColdMs", coldMs),
        ("atlasBytes", Double(coldBytes)),
        ("atlasRasterized", Double(atlas.stats.rasterized)),
        ("scaleStepMs", Double(stepNs) / 60 / 1e6),
        ("scaleStepBytes", Double(stepBytes) / 60),
        ("warmQuadsNsPerGlyph", warmNs),
    ]
    print("{" + json.map { "\"\($0.0)\": \(($0.1 * 1000).rounded() / 1000)" }.joined(separator: ", ") + "}")
}
