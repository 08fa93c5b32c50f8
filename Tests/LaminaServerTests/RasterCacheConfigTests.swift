import Foundation
import Glibc
import LaminaServer
import Testing

/// The daemon's raster cache settings: `automaticRasterCache` off unless the config turns it
/// on, `effectRasterCache` (the automatic cache for masked and filtered subtrees) on unless the
/// config turns it off; each a boolean only, and the shipped config states its default.
@Suite("Automatic raster cache setting")
struct RasterCacheConfigTests {
    @Test(arguments: [("automaticRasterCache", false, #""yes""#), ("effectRasterCache", true, "0")])
    func aBooleanWithItsDefault(key: String, byDefault: Bool, notABoolean: String) throws {
        func value(_ c: DaemonConfig) -> Bool { key == "automaticRasterCache" ? c.automaticRasterCache : c.effectRasterCache }
        let path = NSTemporaryDirectory() + "laminad-\(key)-\(getpid()).json"
        defer { unlink(path) }
        #expect(value(DaemonConfig()) == byDefault)
        try "{\"\(key)\": \(!byDefault)}".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(value(try DaemonConfig.load(path: path)) == !byDefault)
        try "{\"\(key)\": \(notABoolean)}".write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            try DaemonConfig.load(path: path)
        } throws: { error in
            "\(error)".contains("\(key): must be true or false")
        }
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/laminad.json").path
        #expect(value(try DaemonConfig.load(path: shipped)) == byDefault)
    }
}
