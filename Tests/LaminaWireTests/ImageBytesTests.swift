import LaminaWire
import Testing

/// docs/protocol.md, Images: the image requests and events as bytes written out by hand.
extension GoldenBytesTests {
    @Test func imageMessages() {
        // string name, u8 format (1 raw RGBA), u32 width, u32 height, bytes data: 5 + 1 + 4 + 4 + 8 = 22.
        check(.uploadImage(name: "a", format: .rawRGBA, width: 1, height: 1, data: [1, 2, 3, 4]), id: 20,
              "22000000 3800 0000 14000000  01000000 61 01 01000000 01000000 04000000 01020304")
        check(.uploadImage(name: "a", format: .encoded, width: 0, height: 0, data: []), id: 20,
              "1E000000 3800 0000 14000000  01000000 61 00 00000000 00000000 00000000")
        check(.releaseImage(name: "a"), id: 21, "11000000 3900 0000 15000000  01000000 61")
        check(Event.imageUploaded(name: "a", width: 2, height: 3), id: 20,
              "19000000 A100 0000 14000000  01000000 61 02000000 03000000")
        check(Event.imageReleased(name: "a"), id: 21, "11000000 A200 0000 15000000  01000000 61")
    }
}
