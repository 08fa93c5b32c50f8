import Foundation
import Lamina
import LaminaGeometry
import Testing
import LaminaModel
import LaminaSceneTree
import DaemonTestSupport

/// Text layers (`"type": "text"`) in scene files and through the client library: the fields
/// of docs/scene-format.md with CATextLayer's defaults, styled runs, the kind check, animation of
/// `fontSize` and `foregroundColor`.
@Suite struct TextLayerSceneTests {
    func error(_ text: String) -> String? {
        do { _ = try Scene(json: text); return nil } catch { return error.description }
    }

    func properties(_ json: String, _ name: String = "t", at t: Double = 0) throws -> LayerProperties {
        let scene = try Scene(json: json)
        return try #require(try scene.tree(at: t).presentation(at: t)[scene.layerID(named: name)!]?.properties)
    }

    @Test func defaultsAreCATextLayers() throws {
        let p = try properties(#"{"layers": [{"name": "t", "type": "text"}]}"#)
        #expect(p.string == "" && p.font == "sans-serif" && p.fontSize == 36 && p.foregroundColor == .white)
        #expect(p.alignmentMode == .natural && !p.isWrapped && p.truncationMode == TextTruncationMode.none)
    }

    @Test func everyFieldIsRead() throws {
        let p = try properties(#"""
        {"layers": [{"name": "t", "type": "text", "bounds": [0, 0, 200, 40], "string": "Hello",
          "font": "DejaVu Sans:bold", "fontSize": 18, "foregroundColor": "#ff0000",
          "alignmentMode": "center", "isWrapped": true, "truncationMode": "middle"}]}
        """#)
        #expect(p.string == StyledText("Hello") && p.string.isPlain)
        #expect(p.font == "DejaVu Sans:bold" && p.fontSize == 18 && p.foregroundColor == Color(1, 0, 0, 1))
        #expect(p.alignmentMode == .center && p.isWrapped && p.truncationMode == .middle)
    }

    @Test func styledRuns() throws {
        let p = try properties(#"""
        {"layers": [{"name": "t", "type": "text", "string": [
          {"text": "Big ", "fontSize": 40, "foregroundColor": "#00ff00"}, {"text": "bold", "font": "DejaVu Sans:bold"}]}]}
        """#)
        #expect(p.string.runs == [StyledText.Run("Big ", fontSize: 40, foregroundColor: Color(0, 1, 0, 1)),
                                  StyledText.Run("bold", font: "DejaVu Sans:bold")])
        #expect(p.string.string == "Big bold")
        let scene = try Scene(json: #"{"layers": [{"name": "t", "type": "text", "string": [{"text": "a", "fontSize": 9}]}]}"#)
        #expect(try scene.query(["t.string"], at: 0).text == #"{"t.string": [{"text": "a", "fontSize": 9}]}"#)
    }

    @Test func badFieldsNameTheirPath() {
        #expect(error(#"{"layers": [{"type": "text", "alignmentMode": "diagonal"}]}"#)
                == #"layers[0].alignmentMode: must be one of "natural", "left", "right", "center", "justified""#)
        #expect(error(#"{"layers": [{"type": "text", "fontSize": -1}]}"#) == "layers[0].fontSize: must be ≥ 0")
        #expect(error(#"{"layers": [{"type": "text", "string": [{"txt": "a"}]}]}"#) == "layers[0].string[0].txt: unknown field")
        #expect(error(#"{"layers": [{"type": "text", "string": [{"font": "serif"}]}]}"#) == "layers[0].string[0].text: is required")
        #expect(error(#"{"layers": [{"type": "text", "string": 3}]}"#) == "layers[0].string: must be a string or a list of runs")
        #expect(error(#"{"layers": [{"fontSize": 12}]}"#) == "layers[0].fontSize: only text layers have this property")
    }

    /// fontSize and foregroundColor animate (explicitly here; implicitly through transactions).
    @Test func fontSizeAndColorAnimate() throws {
        let json = #"""
        {"layers": [{"name": "t", "type": "text", "string": "x", "fontSize": 10, "foregroundColor": "#000000",
          "animations": {
            "grow": {"type": "basic", "keyPath": "fontSize", "from": 10, "to": 30, "duration": 2},
            "tint": {"type": "basic", "keyPath": "foregroundColor", "from": "#000000", "to": "#ffffff", "duration": 2}}}]}
        """#
        let p = try properties(json, at: 1)
        #expect(abs(p.fontSize - 20) < 1e-9)
        #expect(abs((p.foregroundColor?.red ?? 0) - 0.5) < 1e-9)
        #expect(PropertyTable.row("fontSize")?.implicitAction == true)
        #expect(PropertyTable.row("foregroundColor")?.implicitAction == true)
        #expect(PropertyTable.row("string")?.animates == false)
    }

    @Test func aTextLayerHitsInItsBounds() throws {
        let scene = try Scene(json: #"""
        {"size": [100, 100], "layers": [{"name": "t", "type": "text", "string": "hi", "bounds": [0, 0, 40, 20], "position": [50, 50]}]}
        """#)
        #expect(try scene.hitTest(Point(50, 50), at: 0) == "t")
        #expect(try scene.hitTest(Point(75, 50), at: 0) == nil)
    }

    @Test func theClientLibrarySendsStyledText() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath)
        let label = c.makeTextLayer()
        let styled = StyledText(runs: [StyledText.Run("Hi ", foregroundColor: Color(1, 0, 0, 1)), StyledText.Run("there", fontSize: 12)])
        label.string = styled
        label.font = "DejaVu Serif"
        label.isWrapped = true
        c.root.addSublayer(label)
        try c.commit()
        #expect(try label.presentationValue(forKeyPath: "string") == .text(styled))
        #expect(try label.presentationValue(forKeyPath: "font") == .string("DejaVu Serif"))
        label.string = "plain"
        try c.commit()
        #expect(try label.presentationValue(forKeyPath: "string") == .string("plain"))
    }
}
