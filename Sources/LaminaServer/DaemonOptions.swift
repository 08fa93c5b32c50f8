import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The command line both servers share (`laminad` and `lamina-viewer`): the config file
/// (`--config FILE`, else `config/laminad.json` when present), then the flags over it. Each
/// main adds its own flags; what this does not know is handed back to it.
public enum DaemonOptions {
    /// The shared flags, for usage texts.
    public static let flags = "[--config FILE] [--socket PATH] [--headless] [--size WxH] [--scale S]\n"
        + "               [--fps N] [--clock realtime|manual]"

    /// A bad flag or config file: the message to print (exit status 2).
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Reads the config file and applies the shared flags over it. Returns the config and the
    /// arguments it does not know, in order (with the value after each, for the caller).
    /// - Parameter valueFlags: the caller's flags that take a value (kept with it in `rest`).
    public static func parse(_ arguments: [String], valueFlags: Set<String> = [])
        throws(Failure) -> (config: DaemonConfig, rest: [String]) {
        var args = arguments
        var configPath: String? = nil
        if let i = args.firstIndex(of: "--config") {
            guard i + 1 < args.count else { throw Failure(message: "--config needs a value") }
            configPath = args[i + 1]
            args.removeSubrange(i...i + 1)
        } else if FileManager.default.fileExists(atPath: "config/laminad.json") {
            configPath = "config/laminad.json"
        }
        var config = DaemonConfig()
        if let configPath {
            do { config = try DaemonConfig.load(path: configPath) } catch {
                throw Failure(message: "\(error)")
            }
        }
        var rest: [String] = []
        func value(_ flag: String) throws(Failure) -> String {
            guard !args.isEmpty else { throw Failure(message: "\(flag) needs a value") }
            return args.removeFirst()
        }
        while !args.isEmpty {
            let flag = args.removeFirst()
            switch flag {
            case "--socket": config.socket = try value(flag)
            case "--headless": config.headless = true
            case "--size":
                guard let (w, h) = DaemonConfig.parseSize(try value(flag)) else {
                    throw Failure(message: "--size must be WxH, e.g. 1280x720")
                }
                config.width = w; config.height = h
            case "--scale":
                guard let s = Double(try value(flag)), s > 0, s <= 8 else { throw Failure(message: "--scale must be a number in (0, 8]") }
                config.scale = s
            case "--fps":
                guard let f = Double(try value(flag)), f > 0, f <= 1000 else {
                    throw Failure(message: "--fps must be a number in (0, 1000]")
                }
                config.fps = f
            case "--clock":
                let c = try value(flag)
                guard c == "realtime" || c == "manual" else { throw Failure(message: "--clock must be realtime or manual") }
                config.clock = c
            default:
                rest.append(flag)
                if valueFlags.contains(flag) { rest.append(try value(flag)) }
            }
        }
        return (config, rest)
    }

    /// SIGINT and SIGTERM call `daemon.requestStop()` (the render thread releases the GPU,
    /// the socket goes) and then `also`. `TerminationSignals.install()` must have run first
    /// (the first line of `main`); a signal that came before this call stops the daemon now.
    public static func stopOnSignals(_ daemon: Daemon, also: (@Sendable () -> Void)? = nil) {
        TerminationSignals.install()
        TerminationSignals.onSignal { daemon.requestStop(); also?() }
    }

    /// The line a server prints once it serves (scripts wait for it).
    public static func servingLine(_ name: String, _ daemon: Daemon) -> String {
        let c = daemon.config
        return "\(name): serving \(daemon.socketPath) (\(c.width)x\(c.height) @\(c.scale)x, \(c.fps) fps, \(c.clock) clock)"
    }
}
