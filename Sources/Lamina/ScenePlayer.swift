import Foundation
import LaminaWire

/// Plays a scene into a running daemon through a connection (`laminactl load`): uploads its
/// images, builds its layers in one commit, then commits each transaction when its scene time comes, measured
/// from the load on this process's clock.
public final class ScenePlayer {
    public let scene: Scene
    public let connection: Connection

    public init(scene: Scene, connection: Connection) throws {
        self.scene = scene
        self.connection = connection
    }

    /// Builds the scene, then applies its transactions at their times (blocking until the
    /// last one). `log` receives a line per commit.
    public func loadAndPlay(log: (String) -> Void = { _ in }) throws {
        connection.reserveLayerIDs(through: UInt32(scene.layerCount + 1024))
        // The scene's images are uploaded under their names first (docs/protocol.md, Images).
        for (name, path) in scene.images.sorted(by: { $0.key < $1.key }) {
            _ = try connection.uploadImage(contentsOfFile: path, name: name)
        }
        for (name, bytes) in scene.imageData.sorted(by: { $0.key < $1.key }) {
            _ = try connection.uploadImage(bytes, name: name)
        }
        for op in scene.initialOperations { connection.stageOperation(op) }
        try connection.commit()
        log("built \(scene.layerCount) layers (\(scene.layerNames.count) named)")
        let start = Date()
        for tx in scene.transactions {
            let wait = tx.at - Date().timeIntervalSince(start)
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            for op in tx.operations { connection.stageOperation(op) }
            try connection.commit()
            log(String(format: "transaction at %.3f s committed", tx.at))
        }
    }
}
