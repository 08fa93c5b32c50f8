import Foundation
import LaminaGeometry
import LaminaWire
import Testing
@testable import LaminaServer
import LaminaModel

/// `measureText` (0x3C) through the embedded daemon: the size Pango gives the same text
/// (`scripts/text-references`' cases in LaminaTextTests' References: its layout's logical
/// size, the widest line and the lines' height), within 0.05 pt as LaminaText's own
/// measurement tests (Pango rounds to 1/1024 pt).
@Suite("measureText through the daemon")
struct MeasureTextTests {
    static let references = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("LaminaTextTests/References").path

    /// The case's text, font, size and Pango's size.
    func pango(_ name: String) throws -> (StyledText, String, Double, Size) {
        let data = try #require(FileManager.default.contents(atPath: "\(Self.references)/\(name).json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let reference = try #require(json["reference"] as? [String: Any])
        let size = try #require(reference["size"] as? [Double])
        var text = StyledText(json["string"] as? String ?? "")
        if let runs = json["runs"] as? [[String: Any]] {
            text = StyledText(runs: runs.map {
                StyledText.Run($0["text"] as! String, font: $0["font"] as? String, fontSize: $0["fontSize"] as? Double)
            })
        }
        return (text, json["font"] as? String ?? "sans-serif", json["size"] as! Double, Size(size[0], size[1]))
    }

    func measured(_ daemon: EmbeddedDaemon, _ client: UInt32, _ r: Request) throws -> Size {
        guard case .textMeasured(let w, let h) = daemon.request(r, from: client) else {
            Issue.record("no textMeasured reply")
            return .zero
        }
        return Size(w, h)
    }

    @Test func sizesMatchPango() throws {
        let daemon = EmbeddedDaemon()
        let client = try #require(daemon.connect())
        // One line (kerning), styled runs of three sizes and fonts, and a paragraph wrapped at 260 pt.
        for (name, width) in [("latin-kerning", nil), ("styled-runs", nil), ("wrap-natural", 260.0)] as [(String, Double?)] {
            let (text, font, size, expected) = try pango(name)
            let got = try measured(daemon, client, .measureText(text: text, font: font, fontSize: size, width: width))
            #expect(abs(got.width - expected.width) <= 0.05 && abs(got.height - expected.height) <= 0.05,
                    "\(name): \(got) vs Pango \(expected)")
        }
        // Unconstrained, the wrapped case is one line per paragraph: wider than 260, one line high.
        let (text, font, size, wrapped) = try pango("wrap-natural")
        let line = try measured(daemon, client, .measureText(text: text, font: font, fontSize: size, width: nil))
        #expect(line.width > 260 && line.height < wrapped.height / 3)
    }

    @Test func badRequestsAreErrorsNamingTheField() throws {
        let daemon = EmbeddedDaemon()
        let client = try #require(daemon.connect())
        // The header (length, opcode, flags, request id) and a body with width −5.
        var w = ByteWriter()
        w.u32(0); w.u16(0x3C); w.u16(0); w.u32(9)
        w.string("sans-serif"); w.f64(12); w.f64(-5); w.u8(8); w.string("x")
        var bytes = w.bytes
        bytes.replaceSubrange(0..<4, with: withUnsafeBytes(of: UInt32(bytes.count).littleEndian, Array.init))
        daemon.sendRaw(bytes, from: client)
        let events = daemon.takeEvents(client)
        guard case .error(let opcode, _, let message, _)? = events.first?.event else {
            Issue.record("expected an error, got \(events)")
            return
        }
        #expect(opcode == 0x3C && message.contains("width"))
        // The connection still answers.
        let empty = try measured(daemon, client, .measureText(text: "", font: "sans-serif", fontSize: 12, width: nil))
        // Empty text is one empty line: DejaVu Sans' ascent + descent, (1901 + 483) / 2048 em.
        #expect(empty.width == 0 && abs(empty.height - 12 * (1901 + 483) / 2048.0) < 1e-9)
    }
}
