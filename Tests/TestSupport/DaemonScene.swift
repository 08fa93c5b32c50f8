import Lamina
import LaminaGeometry

/// The daemon tests' scene, built through the client library (its pixels are worked out in
/// DaemonTests; the viewer tests draw it in a window too).
public enum DaemonScene {
    /// The scene: A red 100×100 with anchor (0,0) at (20,20); B blue 80×80 with anchor
    /// (1,1) at (180,180) and opacity 0.5 over it; C a green 40×40 child of A at (50,50) in A's
    /// space, rotated 45° about its center.
    public static func build(_ c: Connection, commit: Bool = true) throws {
        let a = c.makeLayer()
        a.bounds = Rect(0, 0, 100, 100); a.anchorPoint = Point(0, 0); a.position = Point(20, 20)
        a.backgroundColor = Color(1, 0, 0)
        c.root.addSublayer(a)
        let child = c.makeLayer()
        child.bounds = Rect(0, 0, 40, 40); child.position = Point(50, 50); child.transform = .rotation(.pi / 4)
        child.backgroundColor = Color(0, 1, 0)
        a.addSublayer(child)
        let b = c.makeLayer()
        b.bounds = Rect(0, 0, 80, 80); b.anchorPoint = Point(1, 1); b.position = Point(180, 180)
        b.backgroundColor = Color(0, 0, 1); b.opacity = 0.5
        c.root.addSublayer(b)
        if commit { try c.commit() }
    }
}
