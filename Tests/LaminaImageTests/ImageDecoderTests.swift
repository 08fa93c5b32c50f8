import Foundation
import Testing
import LaminaImage
import TestSupport

/// The decoders against the pattern scripts/gen-references wrote the test images from (its
/// formula, repeated here), and every kind of bad input.
@Suite struct ImageDecoderTests {
    static let width = 23, height = 17

    /// scripts/gen_references_images.py `pattern`: straight RGBA.
    static func pattern(_ x: Int, _ y: Int, opaque: Bool = false) -> (Int, Int, Int, Int) {
        (x * 11, y * 15, (x + y) * 6, opaque ? 255 : min(255, (x + y) * 7))
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Images/" + name)
        return [UInt8](try Data(contentsOf: url))
    }

    /// Premultiplied as a person would: round(c × a / 255).
    static func premultiplied(_ c: Int, _ a: Int) -> Int { Int((Double(c * a) / 255).rounded()) }

    @Test(arguments: ["pattern.png", "pattern.webp"])
    func losslessFormatsDecodeExactly(name: String) throws {
        let image = try ImageDecoder.decode(try Self.bytes(name))
        #expect(image.width == Self.width && image.height == Self.height)
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let (r, g, b, a) = Self.pattern(x, y)
                let p = image[x, y]
                let got: [Int] = [Int(p.0), Int(p.1), Int(p.2), Int(p.3)]
                let want: [Int] = [Self.premultiplied(r, a), Self.premultiplied(g, a), Self.premultiplied(b, a), a]
                #expect(got == want, "pixel (\(x), \(y))")
            }
        }
    }

    @Test func jpegDecodesClose() throws {
        let image = try ImageDecoder.decode(try Self.bytes("pattern.jpg"))
        #expect(image.width == Self.width && image.height == Self.height)
        var total = 0, worst = 0
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let (r, g, b, _) = Self.pattern(x, y, opaque: true)
                let p = image[x, y]
                #expect(p.3 == 255)
                for (got, want) in [(Int(p.0), r), (Int(p.1), g), (Int(p.2), b)] {
                    total += abs(got - want)
                    worst = max(worst, abs(got - want))
                }
            }
        }
        // Quality 95 without chroma subsampling on smooth ramps: within a few levels.
        let mean = Double(total) / Double(3 * Self.width * Self.height)
        #expect(mean <= 2, "mean error \(mean)")
        #expect(worst <= 16, "largest error \(worst)")
    }

    @Test func sniffing() throws {
        #expect(ImageFormat.sniff(try Self.bytes("pattern.png")) == .png)
        #expect(ImageFormat.sniff(try Self.bytes("pattern.jpg")) == .jpeg)
        #expect(ImageFormat.sniff(try Self.bytes("pattern.webp")) == .webp)
        #expect(ImageFormat.sniff(Array("GIF89a......".utf8)) == nil)
        #expect(ImageFormat.sniff(Array("RIFF....WAVE".utf8)) == nil)
    }

    @Test(arguments: ["pattern.png", "pattern.webp", "pattern.jpg"])
    func everyTruncationIsAnError(name: String) throws {
        let whole = try Self.bytes(name)
        let pixels = try ImageDecoder.decode(whole).pixels
        // A PNG's last 12 bytes are its IEND chunk, after every pixel: libpng's simplified
        // reader stops at the image's end, so a cut there still gives the whole image.
        let trailer = name.hasSuffix(".png") ? 12 : 0
        // Every other length short of the whole file: an error (never a crash, never an
        // image); past the signature, truncated or corrupt (a cut can land inside a length field).
        for length in 0..<whole.count {
            do {
                let image = try ImageDecoder.decode(Array(whole.prefix(length)))
                if length >= whole.count - trailer {
                    #expect(image.pixels == pixels)
                    continue
                }
                Issue.record("\(name) cut to \(length) bytes decoded to \(image)")
            } catch {
                if length >= 12 {
                    #expect([.truncated, .corrupt].contains(error.kind), "\(name) cut to \(length): \(error)")
                }
            }
        }
    }

    @Test(arguments: ["pattern.png", "pattern.webp", "pattern.jpg"])
    func cutInTheMiddleSaysTruncated(name: String) throws {
        let whole = try Self.bytes(name)
        #expect(throws: ImageError.self) { try ImageDecoder.decode(Array(whole.prefix(whole.count * 2 / 3))) }
        do { _ = try ImageDecoder.decode(Array(whole.prefix(whole.count * 2 / 3))) } catch {
            #expect(error.kind == .truncated, "\(error)")
            #expect(error.message.contains(ImageFormat.sniff(whole)!.name))
        }
    }

    @Test(arguments: ["pattern.png", "pattern.webp", "pattern.jpg"])
    func corruptedBytesNeverCrash(name: String) throws {
        let whole = try Self.bytes(name)
        var random = SeededRandom(seed: 13)
        for _ in 0..<200 {
            var bytes = whole
            for _ in 0..<(1 + Int(random.next() % 8)) {
                let at = 8 + Int(random.next() % UInt64(bytes.count - 8))  // past the signature
                bytes[at] = UInt8(truncatingIfNeeded: random.next())
            }
            // Either an error or an image of the header's size: never a crash.
            if let image = try? ImageDecoder.decode(bytes) {
                #expect(image.pixels.count == image.width * image.height * 4)
            }
        }
    }

    @Test func garbageInThePixelDataIsCorrupt() throws {
        // A PNG whose compressed pixel data (IDAT) is overwritten: zlib or the CRC fails.
        var png = try Self.bytes("pattern.png")
        let idat = try #require(png.indices.first { png[$0..<($0 + 4)] == Array("IDAT".utf8)[...] })
        for i in (idat + 4)..<(idat + 40) { png[i] = 0xA5 }
        #expect { try ImageDecoder.decode(png) } throws: { ($0 as? ImageError)?.kind == .corrupt }
    }

    @Test func limitsAreCheckedBeforeDecoding() throws {
        let png = try Self.bytes("pattern.png")
        func kind(_ limits: ImageLimits) -> ImageError.Kind? {
            do { _ = try ImageDecoder.decode(png, limits: limits); return nil } catch { return error.kind }
        }
        #expect(kind(ImageLimits(maxWidth: 22)) == .tooLarge)
        #expect(kind(ImageLimits(maxHeight: 16)) == .tooLarge)
        #expect(kind(ImageLimits(maxPixels: 23 * 17 - 1)) == .tooLarge)
        #expect(kind(ImageLimits(maxBytes: png.count - 1)) == .tooLarge)
        #expect(kind(ImageLimits(maxWidth: 23, maxHeight: 17, maxPixels: 23 * 17)) == nil)
    }

    @Test func hugeHeaderIsRejectedWithoutAllocating() throws {
        // The pattern's PNG with its IHDR claiming 100000 × 100000 (CRC fixed): too large by the
        // header, before any pixel memory (40 GB) is asked for.
        var png = try Self.bytes("pattern.png")
        let ihdr = 12  // 8-byte signature, 4-byte length
        for (offset, value) in [(ihdr + 4, UInt32(100_000)), (ihdr + 8, UInt32(100_000))] {
            for k in 0..<4 { png[offset + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(k))) }
        }
        let crc = crc32(Array(png[ihdr..<(ihdr + 17)]))
        for k in 0..<4 { png[ihdr + 17 + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(k))) }
        do { _ = try ImageDecoder.decode(png); Issue.record("decoded") } catch {
            #expect(error.kind == .tooLarge, "\(error)")
            #expect(error.message.contains("100000"))
        }
    }

    @Test func otherInputs() {
        func kind(_ bytes: [UInt8]) -> ImageError.Kind? {
            do { _ = try ImageDecoder.decode(bytes); return nil } catch { return error.kind }
        }
        #expect(kind([]) == .empty)
        #expect(kind([0x89, 0x50]) == .empty)
        #expect(kind(Array("GIF89a and more bytes".utf8)) == .unsupported)
        #expect(kind(Array(repeating: 0, count: 100)) == .unsupported)
    }

    @Test func rawPremultipliedRGBA() throws {
        let image = try ImageDecoder.raw([10, 20, 30, 40, 0, 0, 0, 0], width: 2, height: 1)
        #expect(image.width == 2 && image.height == 1)
        #expect(image[0, 0] == (10, 20, 30, 40))
        func kind(_ bytes: [UInt8], _ w: Int, _ h: Int) -> ImageError.Kind? {
            do { _ = try ImageDecoder.raw(bytes, width: w, height: h); return nil } catch { return error.kind }
        }
        #expect(kind([1, 2, 3], 1, 1) == .truncated)
        #expect(kind([1, 2, 3, 4, 5], 1, 1) == .corrupt)
        #expect(kind([50, 0, 0, 40], 1, 1) == .corrupt)  // red above alpha: not premultiplied
        #expect(kind([], 0, 1) == .corrupt)
        #expect(kind([], 20000, 1) == .tooLarge)
    }

    @Test func idsAreDistinct() throws {
        let a = try ImageDecoder.raw([0, 0, 0, 0], width: 1, height: 1)
        let b = try ImageDecoder.raw([0, 0, 0, 0], width: 1, height: 1)
        #expect(a.id != b.id)
    }
}

/// PNG's CRC-32 (ISO 3309), written out here to fix a patched header.
func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}
