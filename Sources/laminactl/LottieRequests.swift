import Foundation
import Lamina
import LaminaLottie
import LaminaWire

/// `laminactl lottie-requests`: a Lottie file's layers (or one dynamic property change) as the
/// staged requests a client sends, for client libraries that cannot map Lottie themselves.
/// Layer ids start at `--first-id`; each request is [opcode, base64 body] (docs/protocol.md).
@MainActor func lottieRequests() throws {
    guard positional.count >= 2 else { fail("lottie-requests needs a LOTTIE file\n\(usage)", code: 2) }
    let file = positional[1]
    var playback = LottiePlayback(autoplay: false)
    if let text = playbackJSON {
        do { playback = try lottiePlayback(JSON.parse(text)) } catch { fail("--playback: \(error)", code: 2) }
    }
    var scene: Scene
    do { scene = try Scene(contentsOfFile: file, lottiePlayback: playback) } catch { fail("\(file): \(error)") }
    guard let lottie = scene.lottie, let clock = scene.lottieClock, let root = scene.names[LottieImport.rootName] else {
        fail("\(file) is not a Lottie file")
    }
    let offset = firstID - 1
    var ops = scene.initialOperations
    var members: [JSON.Member] = []
    if let text = setJSON {
        let change: JSON
        do { change = try JSON.parse(text) } catch { fail("--set: \(error)", code: 2) }
        guard case .object(let m) = change, case .string(let keyPath)? = m.first(where: { $0.key == "keyPath" })?.value,
              let value = numberList(m.first(where: { $0.key == "value" })?.value) else {
            fail("--set needs {\"keyPath\": K, \"value\": [numbers], \"rangeTime\": T}", code: 2)
        }
        let rangeTime = numberList(m.first(where: { $0.key == "rangeTime" })?.value)?.first ?? 0
        do {
            let changes = try lottie.dynamicChanges(keyPath, value, rangeTime: rangeTime)
            ops = try scene.operations(forTransaction: LottiePlayer.transaction(changes))
        } catch { fail("\(keyPath): \(error)") }
    } else {
        members += [
            JSON.Member(key: "layerCount", value: .number(Double(scene.layerCount))),
            JSON.Member(key: "root", value: .number(Double(root + offset))),
            JSON.Member(key: "clock", value: .object([
                JSON.Member(key: "duration", value: .number(clock.duration)),
                JSON.Member(key: "frameRate", value: .number(clock.frameRate)),
                JSON.Member(key: "startFrame", value: .number(clock.startFrame))])),
            JSON.Member(key: "names", value: .object(scene.names.sorted { $0.key < $1.key }.map {
                JSON.Member(key: $0.key, value: .number(Double($0.value + offset)))
            })),
            JSON.Member(key: "images", value: .object(scene.imageData.sorted { $0.key < $1.key }.map {
                JSON.Member(key: $0.key, value: .string(Data($0.value).base64EncodedString()))
            })),
            JSON.Member(key: "warnings", value: .array(scene.warnings.map { .string($0) })),
        ]
        guard scene.images.isEmpty else { fail("\(file): images in files are not supported here (embed them as data URIs)") }
    }
    let requests: [JSON] = ops.map { op in
        let request = Connection.request(for: op.renumbered(by: offset))
        let framed = MessageEncoder.encode(request, requestID: 0)
        return .array([.number(Double(request.opcode)), .string(Data(framed.dropFirst(12)).base64EncodedString())])
    }
    members.append(JSON.Member(key: "requests", value: .array(requests)))
    print(JSON.object(members).text)
}

/// The playback options: {"loopMode": "playOnce" | "loop" | "autoReverse" | {"repeat": N} |
/// {"repeatAutoReverse": N}, "fromFrame", "toFrame", "fromMarker", "toMarker"}.
func lottiePlayback(_ j: JSON) throws(SceneError) -> LottiePlayback {
    guard case .object(let m) = j else { throw SceneError(path: "", "must be an object") }
    var p = LottiePlayback(autoplay: false)
    for member in m {
        switch (member.key, member.value) {
        case ("loopMode", .string("playOnce")): p.loopMode = .playOnce
        case ("loopMode", .string("loop")): p.loopMode = .loop
        case ("loopMode", .string("autoReverse")): p.loopMode = .autoReverse
        case ("loopMode", .object(let r)) where r.count == 1 && numberList(r[0].value)?.count == 1:
            let n = numberList(r[0].value)![0]
            guard n.isFinite, n >= 0 else { throw SceneError(path: "loopMode", "a repeat count must be ≥ 0") }
            switch r[0].key {
            case "repeat": p.loopMode = .repeat(n)
            case "repeatAutoReverse": p.loopMode = .repeatAutoReverse(n)
            default: throw SceneError(path: "loopMode", "unknown loop mode \(r[0].key)")
            }
        case ("fromFrame", .number(let f)) where f.isFinite: p.fromFrame = f
        case ("toFrame", .number(let f)) where f.isFinite: p.toFrame = f
        case ("fromMarker", .string(let s)): p.fromMarker = s
        case ("toMarker", .string(let s)): p.toMarker = s
        case (_, .null): continue
        default: throw SceneError(path: member.key, "unknown or invalid playback option")
        }
    }
    return p
}

/// A number or a list of numbers.
func numberList(_ j: JSON?) -> [Double]? {
    switch j {
    case .number(let x)?: return [x]
    case .array(let a)?:
        var out: [Double] = []
        for e in a { guard case .number(let x) = e else { return nil }; out.append(x) }
        return out
    default: return nil
    }
}
