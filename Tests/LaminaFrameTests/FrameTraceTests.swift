import Foundation
import LaminaModel
import LaminaTree
import Testing
@testable import LaminaFrame

/// The frame trace's ring and its Chrome trace-event JSON (issue 28, item 3).
@Suite struct FrameTraceTests {
    static func phases(_ ms: [Double], gpu: Double? = nil, damaged: Double = 0.5) -> FramePhases {
        var p = FramePhases()
        p.apply = ms[0] / 1000; p.evaluate = ms[1] / 1000; p.tessellate = ms[2] / 1000
        p.upload = ms[3] / 1000; p.record = ms[4] / 1000; p.submit = ms[5] / 1000
        p.total = ms.reduce(0, +) / 1000 + 0.0001
        p.gpu = gpu; p.damaged = damaged
        return p
    }

    static func sample() -> FrameTrace {
        var t = FrameTrace(frameCapacity: 100, started: 10)
        t.record(packets: [CommitPacket(client: 7, sequence: 1, time: nil, content: .connect),
                           CommitPacket(client: 7, sequence: 2, time: nil,
                                        content: .changes([.delete(LayerID(client: 7, local: 1)),
                                                           .delete(LayerID(client: 7, local: 2))]),
                                        wireBytes: 68)], at: 10.001)
        t.record(FrameTrace.Frame(start: 10.001, phases: phases([0.1, 0.2, 0, 0.05, 0.3, 0.1], gpu: 0.0004), items: 12))
        var patched = phases([0, 0.2, 0.01, 0, 0.3, 0.1])
        patched.drawList = 0.00005
        patched.patched = true
        t.record(FrameTrace.Frame(start: 10.009, phases: patched, items: 12))
        t.record(idle: FrameTrace.Idle(start: 10.010, end: 10.5))
        t.record(FrameTrace.Frame(start: 10.5, phases: phases([0.1, 0.2, 0, 0, 0.3, 0.1], damaged: 1), items: 13))
        t.stopped = 10.6
        return t
    }

    static func events(_ json: String) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(object?["displayTimeUnit"] as? String == "ms")
        return try #require(object?["traceEvents"] as? [[String: Any]])
    }

    @Test func eventsHaveTheTraceEventFields() throws {
        let events = try Self.events(Self.sample().chromeJSON())
        #expect(!events.isEmpty)
        for e in events {
            let ph = try #require(e["ph"] as? String)
            #expect(["X", "i", "C", "M"].contains(ph))
            #expect(e["name"] is String)
            #expect(e["pid"] is Int)
            #expect(e["tid"] is Int)
            if ph != "M" {
                #expect(e["cat"] is String)
                let ts = try #require(e["ts"] as? Double)
                #expect(ts >= 0)
            }
            if ph == "X" {
                let dur = try #require(e["dur"] as? Double)
                #expect(dur >= 0)
            }
        }
        // Metadata names the process and the threads.
        let names = events.filter { $0["ph"] as? String == "M" }.compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        #expect(names.contains("laminad") && names.contains("render thread"))
    }

    /// The draw list's part of `evaluate` is nested at its end, named by what it was.
    @Test func aPatchIsNestedAtTheEndOfEvaluate() throws {
        let events = try Self.events(Self.sample().chromeJSON())
        let patch = try #require(events.first { $0["name"] as? String == "patch" })
        let evaluate = try #require(events.first { $0["name"] as? String == "evaluate"
            && abs(($0["ts"] as! Double) + ($0["dur"] as! Double) - (patch["ts"] as! Double) - (patch["dur"] as! Double)) < 0.01 })
        #expect(abs((patch["dur"] as! Double) - 50) < 0.01)   // 0.05 ms
        #expect((patch["ts"] as! Double) >= (evaluate["ts"] as! Double))
        #expect((patch["args"] as? [String: Any])?["patched"] as? Bool == true)
        #expect(!events.contains { $0["name"] as? String == "build" })   // the others made none
    }

    @Test func framesCarryTheirPhasesInOrder() throws {
        let events = try Self.events(Self.sample().chromeJSON())
        let complete = events.filter { $0["ph"] as? String == "X" }
        #expect(complete.filter { $0["name"] as? String == "frame" }.count == 3)
        for name in FramePhases.names {
            #expect(complete.filter { $0["name"] as? String == name }.count == 3, "\(name)")
        }
        #expect(complete.filter { $0["name"] as? String == "gpu" }.count == 1)
        #expect(complete.filter { $0["name"] as? String == "idle" }.count == 1)
        // ts ascending per track; each phase within its frame.
        var lastTS: [Int: Double] = [:]
        var frameEnd = 0.0
        for e in complete {
            let tid = e["tid"] as! Int, ts = e["ts"] as! Double, dur = e["dur"] as! Double
            #expect(ts >= lastTS[tid] ?? 0, "\(e)")
            lastTS[tid] = ts
            if e["name"] as? String == "frame" { frameEnd = ts + dur }
            if e["cat"] as? String == "phase" { #expect(ts + dur <= frameEnd + 0.001, "\(e)") }
        }
    }

    @Test func commitsNameTheirClient() throws {
        let events = try Self.events(Self.sample().chromeJSON())
        let commits = events.filter { $0["cat"] as? String == "commit" }
        #expect(commits.count == 2)
        let commit = try #require(commits.first { $0["name"] as? String == "commit" })
        let args = try #require(commit["args"] as? [String: Any])
        #expect(args["client"] as? Int == 7)
        #expect(args["changes"] as? Int == 2)
        #expect(args["bytes"] as? Int == 68)
        #expect(commit["ph"] as? String == "i")
    }

    @Test func fullRingCountsWhatItDrops() throws {
        var t = FrameTrace(frameCapacity: 2, started: 0)
        for i in 0..<5 { t.record(FrameTrace.Frame(start: Double(i), phases: Self.phases([0, 0, 0, 0, 0, 0]), items: 0)) }
        #expect(t.frames.count == 2)
        #expect(t.droppedFrames == 3)
        #expect(t.frames.capacity >= 2)
        let events = try Self.events(t.chromeJSON())
        #expect(events.filter { $0["name"] as? String == "frame" }.count == 2)
    }

    /// Idle spells are kept as far as they lie inside the recording: a spell begun before the
    /// start counts from it, one running past the stop ends there, one wholly outside goes.
    @Test func idleSpellsAreClippedToTheRecording() throws {
        var t = FrameTrace(frameCapacity: 10, started: 5)
        t.record(idle: FrameTrace.Idle(start: 3, end: 5.25))
        t.record(idle: FrameTrace.Idle(start: 1, end: 4))
        t.record(idle: FrameTrace.Idle(start: 5.5, end: 5.75))
        t.stopped = 6
        t.record(idle: FrameTrace.Idle(start: 5.875, end: 9))
        t.record(idle: FrameTrace.Idle(start: 6.5, end: 7))
        #expect(t.idles == [FrameTrace.Idle(start: 5, end: 5.25), FrameTrace.Idle(start: 5.5, end: 5.75),
                            FrameTrace.Idle(start: 5.875, end: 6)])
        let idle = try Self.events(t.chromeJSON()).filter { $0["name"] as? String == "idle" }
        #expect(idle.map { $0["ts"] as? Double } == [0, 500_000, 875_000])
        #expect(idle.map { $0["dur"] as? Double } == [250_000, 250_000, 125_000])
    }

    @Test func emptyTraceIsValid() throws {
        let events = try Self.events(FrameTrace(started: 3).chromeJSON())
        #expect(events.allSatisfy { $0["ph"] as? String == "M" })
    }
}
