import Foundation
import Glibc
import LaminaServer
import Testing

/// The daemon's `automaticRasterCache` setting: off unless the config turns it on, a boolean
/// only; `effectRasterCache`: on unless the config turns it off.
@Suite("Automatic raster cache setting")
struct RasterCacheConfigTests {
    @Test func offByDefaultOnWhenTheConfigSaysSo() throws {
        let path = NSTemporaryDirectory() + "laminad-raster-auto-\(getpid()).json"
        defer { unlink(path) }
        #expect(DaemonConfig().automaticRasterCache == false)
        try #"{"automaticRasterCache": true}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try DaemonConfig.load(path: path).automaticRasterCache)
        try #"{"automaticRasterCache": "yes"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            try DaemonConfig.load(path: path)
        } throws: { error in
            "\(error)".contains("automaticRasterCache: must be true or false")
        }
        // The shipped config states the default.
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/laminad.json").path
        #expect(try DaemonConfig.load(path: shipped).automaticRasterCache == false)
    }

    /// `effectRasterCache` (the automatic cache for masked and filtered subtrees): on unless
    /// the config turns it off, a boolean only; the shipped config states the default.
    @Test func effectsOnByDefaultOffWhenTheConfigSaysSo() throws {
        let path = NSTemporaryDirectory() + "laminad-raster-effects-\(getpid()).json"
        defer { unlink(path) }
        #expect(DaemonConfig().effectRasterCache)
        try #"{"effectRasterCache": false}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try DaemonConfig.load(path: path).effectRasterCache == false)
        try #"{"effectRasterCache": 0}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            try DaemonConfig.load(path: path)
        } throws: { error in
            "\(error)".contains("effectRasterCache: must be true or false")
        }
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/laminad.json").path
        #expect(try DaemonConfig.load(path: shipped).effectRasterCache)
    }
}
