import Foundation
import Lamina
import LaminaGeometry
import LaminaText
import Testing
@testable import LaminaServer
import LaminaModel
import DaemonTestSupport

/// `Connection.measureText` against a real daemon: the size the daemon sends back equals
/// the size LaminaText's engine gives in this process for the same text and attributes (the
/// reply's f64s carry it exactly), and is within 0.05 pt of Pango's logical size for the
/// `scripts/text-references` cases (as MeasureTextTests). Bad fields are typed errors.
@Suite(.serialized) struct ClientMeasureTextTests {
    /// The size LaminaText's engine gives here, laid out as a text layer lays it out.
    static func engineSize(_ engine: TextLayoutEngine, _ text: StyledText, font: String, size: Double,
                           width: Double?) -> Size {
        let attributed = AttributedText(runs: text.runs.map {
            TextRun($0.text, font: $0.font, fontSize: $0.fontSize, foregroundColor: $0.foregroundColor)
        })
        return engine.measure(attributed, style: TextStyle(font: font, fontSize: size, isWrapped: width != nil), width: width)
    }

    /// The blocking form (an async test would pick the `async` one).
    static func blocking(_ c: Connection, _ text: StyledText, font: String = "sans-serif", size: Double = 36,
                         width: Double? = nil) throws -> Size {
        try c.measureText(text, font: font, fontSize: size, width: width)
    }

    @Test func blockingAndAsyncMatchTheEngineAndPango() async throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { c.close(); daemon.stop() }
        let engine = TextLayoutEngine()
        let cases: [(String, Double?)] = [("latin-kerning", nil), ("styled-runs", nil), ("wrap-natural", 260)]
        for (name, width) in cases {
            let (text, font, size, pango) = try MeasureTextTests().pango(name)
            let expected = Self.engineSize(engine, text, font: font, size: size, width: width)
            let blocking = try Self.blocking(c, text, font: font, size: size, width: width)
            let async = try await c.measureText(text, font: font, fontSize: size, width: width)
            #expect(blocking == expected && async == expected, "\(name): \(blocking), \(async) vs engine \(expected)")
            #expect(abs(blocking.width - pango.width) <= 0.05 && abs(blocking.height - pango.height) <= 0.05,
                    "\(name): \(blocking) vs Pango \(pango)")
        }
    }

    @Test func theDefaultsAreATextLayers() throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { c.close(); daemon.stop() }
        // A plain string with the defaults (sans-serif, 36 pt, one line): one line of DejaVu
        // Sans, ascent + descent = (1901 + 483) / 2048 em, and as wide as the engine says.
        let plain = try c.measureText("Lamina")
        #expect(abs(plain.height - 36 * (1901 + 483) / 2048.0) < 1e-9)
        #expect(plain == Self.engineSize(TextLayoutEngine(), "Lamina", font: "sans-serif", size: 36, width: nil))
    }

    @Test func aBadWidthIsAMalformedErrorNamingIt() throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { c.close(); daemon.stop() }
        do {
            _ = try c.measureText("x", fontSize: 12, width: -5)
            Issue.record("a negative width was measured")
        } catch let e as LaminaError {
            #expect(e.code == .malformed)
            if case .requestFailed(_, _, let message, _) = e { #expect(message.contains("width")) }
            else { Issue.record("expected requestFailed, got \(e)") }
        }
        // The connection still answers.
        #expect(try c.measureText("", fontSize: 12).width == 0)
    }
}
