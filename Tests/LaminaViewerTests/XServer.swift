import Foundation
import LaminaPNG
#if canImport(Glibc)
import Glibc
#endif

/// A private Xvfb display and the X tools the viewer tests drive it with: `xwd` for window
/// screenshots taken from the X server (not from Lamina's capture), `xdotool` for keys and
/// resizes. All come from Debian packages listed in scripts/bootstrap.
final class XServer {
    let display: String
    private let process: Process

    /// Starts a private Xvfb (24-bit) on a display it chooses and waits until it listens.
    init() throws {
        for tool in ["/usr/bin/Xvfb", "/usr/bin/xwd", "/usr/bin/xdotool"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw ToolError("\(tool) is missing: run scripts/bootstrap (xvfb, x11-apps, xdotool)")
        }
        // Xvfb picks a free display itself and writes its number to `-displayfd` (here its
        // stdout) once it listens: suites run in parallel, and display numbers guessed from lock
        // files raced (two tests on one server) and stale locks of killed servers piled up.
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        process.arguments = ["-displayfd", "1", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let data = out.fileHandleForReading.availableData
            guard !data.isEmpty else { throw ToolError("Xvfb exited before choosing a display") }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let number = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ToolError("Xvfb wrote no display number: \(text)")
        }
        display = ":\(number)"
    }

    deinit {
        // SIGTERM lets Xvfb remove its lock and socket; SIGKILL if it lingers.
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Runs an X tool on this display; returns its stdout.
    @discardableResult
    func run(_ tool: String, _ arguments: [String]) throws -> [UInt8] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        p.environment = ["DISPLAY": display, "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw ToolError("\(tool) \(arguments) exited \(p.terminationStatus)") }
        return [UInt8](data)
    }

    /// The id of the first window whose name is `name`, waiting up to `timeout` seconds.
    func window(named name: String, timeout: Double = 10) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let out = try? run("/usr/bin/xdotool", ["search", "--name", "^\(name)$"]),
               let id = String(decoding: out, as: UTF8.self).split(separator: "\n").first {
                return String(id)
            }
            guard Date() < deadline else { throw ToolError("no window named \(name)") }
            usleep(50_000)
        }
    }

    /// The window's pixels as the X server holds them (`xwd`), alpha 255.
    func screenshot(window: String) throws -> RGBAImage {
        try XWD.decode(run("/usr/bin/xwd", ["-id", window, "-silent"]))
    }

    func key(_ key: String, window: String) throws {
        try run("/usr/bin/xdotool", ["key", "--window", window, key])
    }

    func resize(window: String, width: Int, height: Int) throws {
        try run("/usr/bin/xdotool", ["windowsize", window, "\(width)", "\(height)"])
    }
}

struct ToolError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Reads an X Window Dump (`xwd`, file version 7) of a TrueColor window: a header of 32-bit
/// fields (the writer's byte order, found from the version field), the window name, the
/// color map entries (12 bytes each), then rows of `bytes_per_line` bytes whose pixels are
/// `bits_per_pixel` wide in `byte_order` and split by the red/green/blue masks.
enum XWD {
    static func decode(_ bytes: [UInt8]) throws -> RGBAImage {
        guard bytes.count >= 100 else { throw ToolError("xwd: short file") }
        let bigEndian = bytes[7] == 7
        func field(_ index: Int) -> UInt32 {
            let b = Array(bytes[4 * index..<4 * index + 4])
            return bigEndian ? UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
                             : UInt32(b[3]) << 24 | UInt32(b[2]) << 16 | UInt32(b[1]) << 8 | UInt32(b[0])
        }
        guard field(1) == 7, field(2) == 2 else { throw ToolError("xwd: not a version-7 ZPixmap dump") }
        let headerSize = Int(field(0)), width = Int(field(4)), height = Int(field(5))
        let pixelMSB = field(7) == 1
        let bitsPerPixel = Int(field(11)), bytesPerLine = Int(field(12))
        let masks = (field(14), field(15), field(16))
        let colors = Int(field(19))
        guard bitsPerPixel == 32 || bitsPerPixel == 24 else { throw ToolError("xwd: \(bitsPerPixel) bits per pixel") }
        let start = headerSize + 12 * colors
        guard bytes.count >= start + height * bytesPerLine else { throw ToolError("xwd: truncated pixels") }
        func channel(_ value: UInt32, _ mask: UInt32) -> UInt8 {
            guard mask != 0 else { return 0 }
            return UInt8(truncatingIfNeeded: (value & mask) >> UInt32(mask.trailingZeroBitCount))
        }
        let step = bitsPerPixel / 8
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let at = start + y * bytesPerLine + x * step
                var value: UInt32 = 0
                for i in 0..<step {
                    let byte = UInt32(bytes[at + i])
                    value |= pixelMSB ? byte << UInt32(8 * (step - 1 - i)) : byte << UInt32(8 * i)
                }
                let o = (y * width + x) * 4
                pixels[o] = channel(value, masks.0)
                pixels[o + 1] = channel(value, masks.1)
                pixels[o + 2] = channel(value, masks.2)
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }
}
