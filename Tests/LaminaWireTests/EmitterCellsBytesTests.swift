import LaminaGeometry
import LaminaModel
@testable import LaminaWire
import Testing

extension GoldenBytesTests {
    /// VALUE tag 16 (an emitter's cells), written out by hand from docs/protocol.md: the
    /// scene format's list of CELL objects as a string (u32 length, UTF-8 JSON).
    @Test func emitterCellsValue() {
        // 21 + tag 1 + u32 4 + 18 bytes of `[{"birthRate": 2}]` = 44.
        var cell = EmitterCell()
        cell.birthRate = 2
        check(.setProperty(id: 1, keyPath: "k", value: .emitterCells([cell])), id: 1, """
              2C000000 1200 0000 01000000  01000000 01000000 6B
              10 12000000 5B7B22626972746852617465223A20327D5D
              """)
    }

    /// The JSON another client writes (compact, colors as 4 numbers, nested cells) reads as
    /// the same cells; malformed JSON is a malformed message; ranges are left to the model.
    @Test func emitterCellsFromOtherWriters() throws {
        func decode(_ json: String) throws -> PropertyValue {
            var w = ByteWriter()
            w.u8(16); w.string(json)
            var r = ByteReader(w.bytes[...])
            return try PropertyValue.decode(&r)
        }
        var inner = EmitterCell(name: "b")
        inner.lifetime = 0.5
        var outer = EmitterCell(name: "a")
        outer.color = Color(1, 0.5, 0, 1)
        outer.contents = "spark"
        outer.emitterCells = [inner]
        let json = #"[{"name":"a","color":[1.0,0.5,0.0,1.0],"contents":"spark","emitterCells":[{"name":"b","lifetime":0.5}]}]"#
        #expect(try decode(json) == .emitterCells([outer]))
        #expect(throws: WireError.self) { try decode("[{\"birthRate\": }]") }
        #expect(throws: WireError.self) { try decode("[{\"bogus\": 1}]") }
        // A negative birth rate decodes; the model refuses it (invalidValue, not malformed).
        guard case .emitterCells(let cells) = try decode("[{\"birthRate\": -1}]") else { Issue.record("not cells"); return }
        #expect(cells.first?.birthRate == -1 && EmitterCell.problem(cells) != nil)
    }
}
