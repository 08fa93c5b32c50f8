import Lamina

/// The still scene lamina-demo built before the gallery (`--headless`: scripts/run captures it).
enum StillScene {
    static func build(_ c: Connection) throws {
        let w = c.canvasSize.width, h = c.canvasSize.height

        // 1. A backdrop panel with rounded corners and a border.
        let panel = c.makeLayer()
        panel.bounds = Rect(0, 0, w - 80, h - 80)
        panel.position = Point(w / 2, h / 2)
        panel.backgroundColor = Color(hex: "#1E2230")
        panel.cornerRadius = 24
        panel.borderWidth = 2
        panel.borderColor = Color(hex: "#3A4160")
        c.root.addSublayer(panel)

        // 2. A row of cards: anchor points, rotation, opacity.
        let colors = ["#E84A5F", "#FF847C", "#FECEA8", "#99B898", "#2A9D8F"]
        for (i, hex) in colors.enumerated() {
            let card = c.makeLayer()
            card.bounds = Rect(0, 0, 160, 220)
            card.anchorPoint = Point(0.5, 1)                       // rotate about the bottom edge
            card.position = Point(140 + Double(i) * 150, panel.bounds.height - 120)
            card.transform = .rotation(Double(i - 2) * 0.12)
            card.backgroundColor = Color(hex: hex)
            card.cornerRadius = 16
            card.opacity = 0.92
            panel.addSublayer(card)

            // A nested badge: bounds.origin shifts the card's sublayer space.
            let badge = c.makeLayer()
            badge.bounds = Rect(0, 0, 48, 48)
            badge.anchorPoint = Point(0, 0)
            badge.position = Point(14, 14)
            badge.backgroundColor = Color(1, 1, 1, 0.85)
            badge.cornerRadius = 24
            card.addSublayer(badge)
        }

        // 3. Overlapping translucent squares: premultiplied blending in sRGB space.
        for (i, hex) in ["#FF0000", "#00FF00", "#0000FF"].enumerated() {
            let sq = c.makeLayer()
            sq.bounds = Rect(0, 0, 140, 140)
            sq.position = Point(w - 330 + Double(i) * 60, 170 + Double(i % 2) * 50)
            sq.backgroundColor = Color(hex: hex)
            sq.opacity = 0.5
            panel.addSublayer(sq)
        }

        // 4. A title bar: sublayerTransform scales its children.
        let bar = c.makeLayer()
        bar.bounds = Rect(0, 0, 420, 60)
        bar.anchorPoint = Point(0, 0)
        bar.position = Point(40, 40)
        bar.backgroundColor = Color(hex: "#2B3047")
        bar.cornerRadius = 12
        panel.addSublayer(bar)
        for i in 0..<6 {
            let pip = c.makeLayer()
            pip.bounds = Rect(0, 0, 36, 36)
            pip.position = Point(40 + Double(i) * 56, 30)
            pip.backgroundColor = Color(hex: i % 2 == 0 ? "#FECEA8" : "#99B898")
            pip.cornerRadius = 6
            pip.transform = .rotation(.pi / 4)
            bar.addSublayer(pip)
        }

        try c.commit()
    }
}
