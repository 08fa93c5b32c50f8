import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaPNG
import LaminaServer
import LaminaWire
import Testing
import LaminaModel

/// Images through the protocol (docs/protocol.md, Images) on the embedded daemon: upload,
/// show, release, the per-client memory limit, bad bytes, two clients kept apart. Expected
/// values come from the document and from the pixels each test encodes itself.
@Suite struct ImageProtocolTests {
    /// An opaque w×h image whose pixel (x, y) is (x·40, y·40, 200 − x·10, 255), as a PNG and as
    /// the premultiplied pixels a decoder must produce (opaque: premultiplied = straight).
    static func pattern(_ w: Int, _ h: Int) throws -> (png: [UInt8], pixels: [UInt8]) {
        var px: [UInt8] = []
        for y in 0..<h { for x in 0..<w { px += [UInt8(x * 40 % 256), UInt8(y * 40 % 256), UInt8(200 - x * 10 % 200), 255] } }
        return (try PNG.encode(RGBAImage(width: w, height: h, pixels: px)), px)
    }

    static func upload(_ d: EmbeddedDaemon, _ c: UInt32, _ name: String, _ png: [UInt8]) -> Event {
        d.request(.uploadImage(name: name, format: .encoded, width: 0, height: 0, data: png), from: c)
    }

    /// A 40×40 layer at the canvas origin (id `layer`) showing `name`.
    static func show(_ d: EmbeddedDaemon, _ c: UInt32, layer: UInt32 = 1, _ name: String) -> Event {
        d.commit([.createLayer(id: layer, kind: .layer),
                  .setProperty(id: layer, keyPath: "frame", value: .rect(Rect(0, 0, 40, 40))),
                  .setProperty(id: layer, keyPath: "contents", value: .string(name)),
                  .addSublayer(parent: 0, child: layer)], from: c)
    }

    /// The images the frame draws, in drawing order.
    static func drawnImages(_ d: EmbeddedDaemon) -> [Image] {
        d.drawList().items.compactMap { if case .image(let draw) = $0.kind { draw.image } else { nil } }
    }

    static func expectError(_ e: Event, _ code: ErrorCode, opcode: UInt16, layer: UInt32 = 0, key: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .error(_, let c, let message, let detail) = e else {
            Issue.record("expected \(code), got \(e)", sourceLocation: sourceLocation); return
        }
        #expect(c == code, "\(message)", sourceLocation: sourceLocation)
        #expect(detail.opcode == opcode && detail.layer == layer && detail.key == key, "\(detail)",
                sourceLocation: sourceLocation)
    }

    @Test func uploadShowAndReleaseFreesWhenNoLayerShowsIt() throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let (png, pixels) = try Self.pattern(5, 3)
        #expect(Self.upload(d, c, "logo", png) == .imageUploaded(name: "logo", width: 5, height: 3))
        #expect(d.driver.builder.images.count == 1)
        guard case .committed = Self.show(d, c, "logo") else { Issue.record("show failed"); return }
        let drawn = Self.drawnImages(d)
        #expect(drawn.count == 1 && drawn.first?.pixels == pixels && drawn.first?.width == 5)
        // The client reads back its own name, not the daemon's qualified one.
        #expect(d.request(.getPresentation(id: 1, keyPath: "contents"), from: c) == .presentation(value: .string("logo")))
        // Released while shown: the layer keeps it; the name is free.
        #expect(d.request(.releaseImage(name: "logo"), from: c) == .imageReleased(name: "logo"))
        #expect(Self.drawnImages(d).count == 1 && d.driver.builder.images.count == 1)
        Self.expectError(d.commit([.setProperty(id: 1, keyPath: "contents", value: .string("logo"))], from: c),
                         .unknownImage, opcode: 0x12, layer: 1, key: "contents")
        // The layer stops showing it: freed.
        guard case .committed = d.commit([.setProperty(id: 1, keyPath: "contents", value: .string(""))], from: c) else {
            Issue.record("clearing contents failed"); return
        }
        #expect(Self.drawnImages(d).isEmpty && d.driver.builder.images.isEmpty)
        Self.expectError(d.request(.releaseImage(name: "logo"), from: c), .unknownImage, opcode: 0x39, key: "logo")
    }

    @Test func sharedByLayersAndFreedWithTheLastOneDeleted() throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let (png, _) = try Self.pattern(2, 2)
        _ = Self.upload(d, c, "dot", png)
        _ = Self.show(d, c, layer: 1, "dot")
        _ = Self.show(d, c, layer: 2, "dot")
        let drawn = Self.drawnImages(d)
        // One decoded image for both: the same image id, one entry in the builder's images.
        #expect(drawn.count == 2 && drawn[0].id == drawn[1].id && d.driver.builder.images.count == 1)
        _ = d.request(.releaseImage(name: "dot"), from: c)
        _ = d.commit([.deleteLayer(id: 1)], from: c)
        #expect(d.driver.builder.images.count == 1)
        _ = d.commit([.deleteLayer(id: 2)], from: c)
        #expect(d.driver.builder.images.isEmpty)
    }

    @Test func rawPremultipliedRGBA() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let px: [UInt8] = [255, 0, 0, 255, 0, 64, 0, 128]  // opaque red, half-transparent green
        #expect(d.request(.uploadImage(name: "raw", format: .rawRGBA, width: 2, height: 1, data: px), from: c)
                == .imageUploaded(name: "raw", width: 2, height: 1))
        _ = Self.show(d, c, "raw")
        #expect(Self.drawnImages(d).first?.pixels == px)
        // Not premultiplied (a channel above its alpha), or the wrong byte count: invalidImage.
        Self.expectError(d.request(.uploadImage(name: "bad", format: .rawRGBA, width: 1, height: 1, data: [9, 0, 0, 8]), from: c),
                         .invalidImage, opcode: 0x38, key: "bad")
        Self.expectError(d.request(.uploadImage(name: "short", format: .rawRGBA, width: 2, height: 2, data: px), from: c),
                         .invalidImage, opcode: 0x38, key: "short")
    }

    @Test func badBytesAreAnErrorNamingTheImageAndNothingElseChanges() throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let (png, _) = try Self.pattern(4, 4)
        _ = Self.upload(d, c, "good", png)
        _ = Self.show(d, c, "good")
        let garbage: [UInt8] = Array("this is not an image at all".utf8)
        Self.expectError(Self.upload(d, c, "junk", garbage), .invalidImage, opcode: 0x38, key: "junk")
        Self.expectError(Self.upload(d, c, "cut", Array(png.prefix(png.count / 2))), .invalidImage, opcode: 0x38, key: "cut")
        Self.expectError(Self.upload(d, c, "good", png), .duplicateImage, opcode: 0x38, key: "good")
        Self.expectError(Self.upload(d, c, "", png), .invalidValue, opcode: 0x38, key: "")
        // Nothing else is affected: the shown image stays, the connection works.
        #expect(Self.drawnImages(d).count == 1 && d.driver.builder.images.count == 1)
        guard case .committed = d.commit([.setProperty(id: 1, keyPath: "opacity", value: .number(0.5))], from: c) else {
            Issue.record("the connection no longer commits"); return
        }
    }

    @Test func memoryLimitPerClient() throws {
        // Room for one 10×10 image (400 bytes) and not two.
        let d = EmbeddedDaemon { $0.maxImageBytesPerClient = 700; $0.maxMessageSize = 1 << 20 }
        let c = d.connect()!, other = d.connect()!
        let (png, _) = try Self.pattern(10, 10)
        #expect(Self.upload(d, c, "a", png) == .imageUploaded(name: "a", width: 10, height: 10))
        Self.expectError(Self.upload(d, c, "b", png), .limitExceeded, opcode: 0x38, key: "b")
        // Another client has its own budget.
        #expect(Self.upload(d, other, "b", png) == .imageUploaded(name: "b", width: 10, height: 10))
        // Releasing an image no layer shows gives its bytes back.
        _ = d.request(.releaseImage(name: "a"), from: c)
        #expect(Self.upload(d, c, "b", png) == .imageUploaded(name: "b", width: 10, height: 10))
        // A header that claims more pixels than the budget is refused before decoding: a
        // 100×100 PNG (40,000 bytes decoded).
        let (big, _) = try Self.pattern(100, 100)
        Self.expectError(Self.upload(d, other, "big", big), .limitExceeded, opcode: 0x38, key: "big")
    }

    @Test func twoClientsCannotShowOrFreeEachOthersImages() throws {
        let d = EmbeddedDaemon()
        let a = d.connect()!, b = d.connect()!
        let (pngA, pixelsA) = try Self.pattern(3, 3)
        let (pngB, pixelsB) = try Self.pattern(2, 4)
        _ = Self.upload(d, a, "logo", pngA)
        // B cannot name A's image, nor release it.
        Self.expectError(Self.show(d, b, "logo"), .unknownImage, opcode: 0x12, layer: 1, key: "contents")
        Self.expectError(d.request(.releaseImage(name: "logo"), from: b), .unknownImage, opcode: 0x39, key: "logo")
        // B's own "logo" is another image; each client's layer shows its own.
        #expect(Self.upload(d, b, "logo", pngB) == .imageUploaded(name: "logo", width: 2, height: 4))
        _ = Self.show(d, a, "logo")
        _ = Self.show(d, b, "logo")
        #expect(Self.drawnImages(d).map(\.pixels) == [pixelsA, pixelsB])  // containers stack in connection order
        // A leaves: its image goes, B's stays.
        d.hangUp(a)
        #expect(Self.drawnImages(d).map(\.pixels) == [pixelsB] && d.driver.builder.images.count == 1)
    }

    @Test func anEarlierFailingRequestIsReportedBeforeAnUnknownImage() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let e = d.commit([.setProperty(id: 9, keyPath: "opacity", value: .number(1)),
                          .createLayer(id: 1, kind: .layer),
                          .setProperty(id: 1, keyPath: "contents", value: .string("nothing"))], from: c)
        Self.expectError(e, .unknownLayer, opcode: 0x12, layer: 9, key: "opacity")
    }
}

extension ImageProtocolTests {
    @Test func contentsDoesNotAnimate() throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let (png, _) = try Self.pattern(2, 2)
        _ = Self.upload(d, c, "a", png)
        _ = Self.upload(d, c, "b", png)
        _ = Self.show(d, c, "a")
        // An explicit animation of contents is refused…
        let json = #"{"type": "basic", "keyPath": "contents", "from": "a", "to": "b", "duration": 1}"#
        guard case .error(_, let code, _, _) = d.commit([.addAnimation(id: 1, key: "swap", json: json)], from: c),
              code == .invalidAnimation || code == .transactionFailed else {
            Issue.record("an animation of contents was accepted"); return
        }
        // …and a change inside an animating transaction is the new model value at once and
        // cross-fades: the old image drawn, the new one over it (ContentsFadeTests: the pixels).
        _ = d.commit([.setTransaction(TransactionSettings(duration: 1, timingFunction: .linear, disableActions: false,
                                                          completionIDs: [])),
                      .setProperty(id: 1, keyPath: "contents", value: .string("b"))], from: c)
        #expect(d.request(.getPresentation(id: 1, keyPath: "contents"), from: c) == .presentation(value: .string("b")))
        #expect(Self.drawnImages(d).count == 2)
    }
}
