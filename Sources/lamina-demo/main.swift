// lamina-demo: the demo gallery (LaminaGallery) against a running laminad or lamina-viewer —
// pages the compositor animates by itself, switched with the arrow keys (input events) — or,
// with --headless, today's still scene built once and captured (scripts/run).
//
//   lamina-demo [--socket PATH] [--headless] [--out DIR] [--hold SECONDS] [--page N] [--lottie FILE.json …]
//
// --hold keeps the connection (and so the scene) for that long (the gallery: until the
// daemon goes, or SECONDS when given). --page starts the gallery at page N (1…). --lottie
// (repeatable) adds a Lottie file to the Lottie page after its bundled one; without it, the
// page takes a few files of Tests/Fixtures/lottie-corpus when run from the source tree.
import Foundation
import Lamina
import LaminaGallery
import Synchronization

/// What the connection's callbacks heard, for the main thread.
final class Inbox: Sendable {
    enum Input: Sendable { case key(UInt32), click(UInt32), reduceMotion(Bool), display }
    private let items = Mutex<[Input]>([])
    func post(_ input: Input) { items.withLock { $0.append(input) } }
    func take() -> [Input] { items.withLock { let all = $0; $0 = []; return all } }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("lamina-demo: \(message)\n".utf8))
    exit(1)
}

/// One line on stdout, written at once (page changes appear as they happen, even into a pipe).
func say(_ line: String) { FileHandle.standardOutput.write(Data(("lamina-demo: " + line + "\n").utf8)) }

var args = Array(CommandLine.arguments.dropFirst())
var socketPath: String? = nil
var outDir = "captures"
var hold: Double? = nil
var headless = false
var firstPage = 1
var lottiePaths: [String] = []
while !args.isEmpty {
    let a = args.removeFirst()
    switch a {
    case "--socket":
        guard !args.isEmpty else { fail("--socket needs a path") }
        socketPath = args.removeFirst()
    case "--hold":
        guard !args.isEmpty, let s = Double(args.removeFirst()), s >= 0, s.isFinite else { fail("--hold needs seconds ≥ 0") }
        hold = s
    case "--out":
        guard !args.isEmpty else { fail("--out needs a directory") }
        outDir = args.removeFirst()
    case "--headless": headless = true
    case "--page":
        guard !args.isEmpty, let n = Int(args.removeFirst()), (1...Gallery.Page.allCases.count).contains(n) else {
            fail("--page needs 1…\(Gallery.Page.allCases.count)")
        }
        firstPage = n
    case "--lottie":
        guard !args.isEmpty else { fail("--lottie needs a file") }
        lottiePaths.append(args.removeFirst())
    default: fail("unknown option \(a); usage: lamina-demo [--socket PATH] [--headless] [--out DIR] [--hold SECONDS] [--page N] [--lottie FILE.json …]")
    }
}

do {
    let c = try Connection(socketPath: socketPath, name: "lamina-demo")
    // The daemon's clock, about (the gallery's emitter starts its burst then): its time at the
    // welcome plus the time since (a manual clock stays where it was).
    let welcomed = Date()
    func daemonNow() -> Double { c.welcomeTime + (c.isManualClock ? 0 : Date().timeIntervalSince(welcomed)) }
    if headless {
        try StillScene.build(c)
        try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
        let shot = try c.capture(at: c.isManualClock ? 0 : nil)
        let path = (outDir as NSString).appendingPathComponent("demo.png")
        try Data(shot.png).write(to: URL(fileURLWithPath: path))
        say("wrote \(path) (\(shot.width)x\(shot.height))")
        if let hold, hold > 0 { Thread.sleep(forTimeInterval: hold) }
        exit(0)
    }
    // The Lottie page's files: those given, or a few of the corpus (source tree) when present.
    let corpus = ["like", "gears", "loading_", "bounching_ball", "emoji_wink"].map { "Tests/Fixtures/lottie-corpus/\($0).json" }
    let lottieFiles: [(name: String, json: String)] = (lottiePaths.isEmpty ? corpus : lottiePaths).compactMap { path in
        guard let data = FileManager.default.contents(atPath: path) else {
            if !lottiePaths.isEmpty { fail("cannot read \(path)") }
            return nil
        }
        return ((path as NSString).lastPathComponent, String(decoding: data, as: UTF8.self))
    }
    var gallery = Gallery(canvas: c.canvasSize, reduceMotion: c.reduceMotion, lottieFiles: lottieFiles)
    gallery.now = daemonNow()
    var pending = gallery.show(Gallery.Page(rawValue: firstPage - 1)!)
    // Callbacks run on the connection's delivery context: they queue what happened, and this
    // thread turns it into the gallery's changes and commits them.
    let inbox = Inbox()
    c.onKey = { key in if key.isDown { inbox.post(.key(key.key)) } }
    c.onPointer = { p in if p.phase == .down { inbox.post(.click(p.layer)) } }
    c.onReduceMotionChange = { on in inbox.post(.reduceMotion(on)) }
    c.onDisplayChange = { _ in inbox.post(.display) }
    say("gallery page \(gallery.page.rawValue + 1): \(gallery.page.title) (← → pages)")
    var shown = gallery.page
    let deadline = hold.map { Date().addingTimeInterval($0) }
    while deadline.map({ Date() < $0 }) ?? true {
        for input in inbox.take() {
            gallery.now = daemonNow()
            switch input {
            case .key(let code): pending += gallery.key(code)
            case .click(let layer): pending += gallery.click(layer)
            case .reduceMotion(let on): pending += gallery.setReduceMotion(on)
            case .display: pending += gallery.show(gallery.page)
            }
        }
        if !pending.isEmpty {
            for op in pending {
                // Transaction settings through the connection's transaction (CATransaction's),
                // so they apply to the changes staged after them.
                if case .setTransaction(let t) = op {
                    c.setAnimationDuration(t.duration); c.setAnimationTimingFunction(t.timingFunction)
                    c.setDisableActions(t.disableActions)
                } else {
                    c.stageOperation(op)
                }
            }
            pending = []
            try c.commit()
            if gallery.page != shown {
                shown = gallery.page
                say("page \(shown.rawValue + 1): \(shown.title)")
            }
        }
        try c.waitWhileConnected(timeout: 0.02)
    }
} catch LaminaError.disconnected {
    exit(0)
} catch {
    fail("\(error)")
}
