import LaminaModel
import LaminaWire
import Testing

extension GoldenBytesTests {
    /// VALUE tag 14 (styled text, a text layer's `string` with runs), written out by hand from
    /// docs/protocol.md: u32 count, each run's string, u8 flags (1 font, 2 fontSize,
    /// 4 foregroundColor), then those present in that order.
    @Test func styledTextValue() {
        // 1 + 4 + ("Hi": 4 + 2, flags, f64 2) + ("!": 4 + 1, flags, "a": 4 + 1)
        // + ("c": 4 + 1, flags, 4 × f64) = 1 + 4 + 15 + 11 + 38 = 69; 21 + 69 = 90.
        let runs = StyledText(runs: [StyledText.Run("Hi", fontSize: 2), StyledText.Run("!", font: "a"),
                                     StyledText.Run("c", foregroundColor: .init(1, 0.5, 0, 1))])
        check(.setProperty(id: 1, keyPath: "k", value: .text(runs)), id: 1, """
              5A000000 1200 0000 01000000  01000000 01000000 6B
              0E 03000000  02000000 4869 02 \(Self.f2)  01000000 21 01 01000000 61
              01000000 63 04 \(Self.f1) \(Self.f05) \(Self.f0) \(Self.f1)
              """)
    }
}
