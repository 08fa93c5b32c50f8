// lamina-kiosk: a status board, written as a newcomer would from docs/swift-client.md.
//
//   swift run lamina-kiosk [--socket PATH] [--seconds S]
//
// Three cards (CPU, memory, network), each with a title, a value and an icon; a progress
// ring (a shape layer whose strokeEnd animates); a live badge counting up once a second; a
// click on a card — on its title, value or icon too: pointer events bubble to the card —
// expands it with an animation (and a second click folds it). A click on the background
// bubbles up to the root container's handler. With `--seconds S` it stops after S seconds
// and prints what happened as one JSON object (the tests read it); it prints `ready` and the
// layout as JSON once the board is on screen.
import Foundation
import Lamina

@main
struct Kiosk {
    @MainActor
    static func main() async {
        var socket: String? = nil
        var seconds: Double? = nil
        var args = CommandLine.arguments.dropFirst()
        while let arg = args.popFirst() {
            switch arg {
            case "--socket": socket = args.popFirst()
            case "--seconds": seconds = args.popFirst().flatMap(Double.init)
            default:
                FileHandle.standardError.write(Data("usage: lamina-kiosk [--socket PATH] [--seconds S]\n".utf8))
                exit(2)
            }
        }
        do {
            let board = try StatusBoard(socket: socket)
            try await board.build()
            try await board.run(seconds: seconds)
        } catch {
            FileHandle.standardError.write(Data("lamina-kiosk: \(error)\n".utf8))
            exit(1)
        }
    }
}

/// The board: the connection and its layers live on the main actor, and so do the pointer
/// handlers (`{ @MainActor … }`), so they may touch the layers.
@MainActor
final class StatusBoard {
    struct Card {
        let name: String
        let layer: Layer
        let title: TextLayer
        let value: TextLayer
        let icon: Layer
        var expanded = false
    }

    static let cardSize = Size(140, 90)
    static let expandedHeight = 180.0
    static let background = Color(0.08, 0.09, 0.12)
    static let cardColor = Color(0.18, 0.2, 0.26)

    let connection: Connection
    var cards: [Card] = []
    var backdrop: Layer!
    var ring: ShapeLayer!
    var badge: TextLayer!
    var count = 0
    /// What the handlers saw: `[card or "root", target layer's name, x, y]`.
    var clicks: [[Any]] = []
    var names: [UInt32: String] = [:]

    init(socket: String?) throws {
        connection = try Connection(socketPath: socket, name: "lamina-kiosk")
    }

    func build() async throws {
        let c = connection
        // The root container takes no properties: the background is a layer of its own.
        backdrop = c.makeLayer()
        backdrop.anchorPoint = Point(0, 0)
        backdrop.bounds = Rect(origin: Point(0, 0), size: c.canvasSize)
        backdrop.position = Point(0, 0)
        backdrop.backgroundColor = Self.background
        c.root.addSublayer(backdrop)
        names[backdrop.id] = "backdrop"

        for (i, (name, value)) in [("CPU", "42 %"), ("Memory", "3.1 GB"), ("Network", "12 Mb/s")].enumerated() {
            cards.append(makeCard(name, value: value, at: Point(20 + Double(i) * 155, 20)))
        }

        // The ring: a circle stroked from 12 o'clock; strokeEnd animates to the share done.
        ring = c.makeShapeLayer()
        ring.bounds = Rect(0, 0, 80, 80)
        ring.position = Point(80, 220)
        var circle = Path()
        circle.addArc(center: Point(40, 40), radius: 32, startAngle: -.pi / 2, endAngle: 1.5 * .pi, clockwise: true)
        ring.path = circle
        ring.fillColor = nil
        ring.strokeColor = Color(0.3, 0.8, 0.5)
        ring.lineWidth = 8
        ring.lineCap = .round
        ring.strokeEnd = 0.72
        backdrop.addSublayer(ring)
        names[ring.id] = "ring"

        // The badge: a pill with a text layer whose string changes every second (text is
        // drawn from the top of its bounds: the label sits 4 points down in the pill).
        let pill = c.makeLayer()
        pill.bounds = Rect(0, 0, 64, 28)
        pill.position = Point(420, 220)
        pill.backgroundColor = Color(0.85, 0.2, 0.25)
        pill.cornerRadius = 14
        badge = c.makeTextLayer()
        badge.frame = Rect(0, 4, 64, 22)
        badge.foregroundColor = Color(1, 1, 1)
        badge.fontSize = 16
        badge.alignmentMode = .center
        badge.text = "0"            // a plain String (`string` takes StyledText)
        pill.addSublayer(badge)
        backdrop.addSublayer(pill)
        names[pill.id] = "badge"
        names[badge.id] = "badge.text"

        // A click on the background bubbles to the root container.
        c.root.onPointer { @MainActor [weak self] event in
            guard event.phase == .down else { return .ignored }
            self?.clicks.append(["root", self?.names[event.target] ?? "?", event.location.x, event.location.y])
            return .handled
        }
        try await c.commit()

        // The ring fills in once (an explicit animation: the model value is already 0.72).
        var fill = AnimationTiming()
        fill.duration = 1.2
        fill.timingFunction = .easeOut
        ring.add(.basic(BasicAnimation(keyPath: "strokeEnd", from: .double(0), to: .double(0.72), timing: fill)),
                 forKey: "fill")
        try await c.commit()
    }

    func makeCard(_ name: String, value: String, at origin: Point) -> Card {
        let c = connection
        let card = c.makeLayer()
        card.anchorPoint = Point(0, 0)             // grows downwards when its height changes
        card.position = origin
        card.bounds = Rect(origin: Point(0, 0), size: Self.cardSize)
        card.backgroundColor = Self.cardColor
        card.cornerRadius = 10
        card.masksToBounds = true                  // the expanded part appears as it grows

        // A line of text on the card.
        func label(_ frame: Rect, _ text: String, size: Double, _ color: Color) -> TextLayer {
            let l = c.makeTextLayer()
            l.frame = frame
            l.text = text
            l.fontSize = size
            l.foregroundColor = color
            card.addSublayer(l)
            return l
        }
        let title = label(Rect(12, 10, 116, 22), name, size: 15, Color(0.75, 0.78, 0.85))
        let number = label(Rect(12, 40, 116, 30), value, size: 22, Color(1, 1, 1))

        let icon = c.makeLayer()
        icon.frame = Rect(110, 12, 18, 18)
        icon.cornerRadius = 9
        icon.backgroundColor = Color(0.3, 0.8, 0.5)
        card.addSublayer(icon)
        backdrop.addSublayer(card)
        for (layer, part) in [(card, ""), (title, ".title"), (number, ".value"), (icon, ".icon")] as [(Layer, String)] {
            names[layer.id] = name + part
        }

        // The card's handler hears clicks on the title, value and icon too (they bubble).
        card.onPointer { @MainActor [weak self] event in
            guard event.phase == .down, let self else { return .ignored }
            self.clicks.append([name, self.names[event.target] ?? "?", event.location.x, event.location.y])
            self.toggle(name)
            return .handled                        // the root's handler does not hear it
        }
        return Card(name: name, layer: card, title: title, value: number, icon: icon)
    }

    /// Expands or folds a card, animated (an implicit animation of its bounds).
    func toggle(_ name: String) {
        guard let i = cards.firstIndex(where: { $0.name == name }) else { return }
        cards[i].expanded.toggle()
        let card = cards[i]
        let height = card.expanded ? Self.expandedHeight : Self.cardSize.height
        Task { @MainActor in
            do {
                try await connection.transaction(duration: 0.3, timingFunction: .easeInEaseOut) {
                    card.layer.bounds = Rect(0, 0, Self.cardSize.width, height)
                    card.layer.zPosition = card.expanded ? 1 : 0
                }
            } catch {
                FileHandle.standardError.write(Data("lamina-kiosk: \(name): \(error)\n".utf8))
            }
        }
    }

    func run(seconds: Double?) async throws {
        let layout: [String: Any] = [
            "ready": true,
            "cards": Dictionary(uniqueKeysWithValues: cards.map { card in
                (card.name, [card.layer.frame.origin.x, card.layer.frame.origin.y, card.layer.frame.size.width,
                             card.layer.frame.size.height])
            }),
            "titles": Dictionary(uniqueKeysWithValues: cards.map { card in
                let f = card.title.frame, o = card.layer.frame.origin
                return (card.name, [o.x + f.origin.x, o.y + f.origin.y, f.size.width, f.size.height])
            }),
        ]
        // Written straight to the descriptor: the tests wait for this line.
        let line = String(decoding: try JSONSerialization.data(withJSONObject: layout, options: [.sortedKeys]), as: UTF8.self)
        FileHandle.standardOutput.write(Data((line + "\n").utf8))

        let start = Date()
        while seconds.map({ Date().timeIntervalSince(start) < $0 }) ?? true {
            try await Task.sleep(nanoseconds: 250_000_000)
            let due = Int(Date().timeIntervalSince(start))
            if due != count {
                count = due
                badge.text = "\(count)"           // the live badge
                try await connection.commit()
            }
        }
        try await report()
    }

    /// What happened, as JSON: the clicks the handlers heard, the cards' presentation heights
    /// (asked of the daemon), the badge's text and the compositor's time.
    func report() async throws {
        var heights: [String: Double] = [:]
        for card in cards { heights[card.name] = try await card.layer.presentation().properties.bounds.size.height }
        let result: [String: Any] = [
            "clicks": clicks,
            "expanded": cards.filter(\.expanded).map(\.name),
            "heights": heights,
            "badge": badge.text,
            "time": try await connection.currentTime(),
        ]
        let line = String(decoding: try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]), as: UTF8.self)
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
        connection.close()
    }
}
