import CVulkan
import LaminaFrame
import LaminaGeometry

/// The meshes on the GPU, by `MeshID` (uploaded on first use into the `MeshArena`), and
/// forgotten after `idleFrames` frames without use. Render thread only.
final class MeshResidency {
    /// A mesh's place in the arena: its vertices from `vertexOffset`, its indices from
    /// `firstIndex` (both move when the arena is rebuilt).
    final class GPUMesh {
        var vertexOffset = 0
        var firstIndex = 0
        let indexCount: Int
        var lastFrame: UInt64
        /// The CPU arrays, kept so that a rebuilt arena can be refilled.
        let vertices: [MeshVertex]
        let indices: [UInt32]
        init(_ mesh: Mesh, lastFrame: UInt64) {
            indexCount = mesh.indices.count
            self.lastFrame = lastFrame
            vertices = mesh.vertices
            indices = mesh.indices
        }
    }

    /// A mesh unused for this many frames is forgotten.
    static let idleFrames: UInt64 = 120

    private var meshes: [MeshID: GPUMesh] = [:]
    /// Every resident mesh's vertices and indices.
    let arena = MeshArena()
    /// Meshes uploaded so far.
    private(set) var uploads = 0
    /// Meshes resident.
    var count: Int { meshes.count }
    /// Bumped when the arena is rebuilt (every mesh moved) or a mesh is forgotten: recorded
    /// draws may be stale.
    private(set) var changes: UInt64 = 0

    /// The GPU copy of `draw`'s mesh, uploaded on first use, marked used in `frame`. A full
    /// arena is rebuilt twice the live meshes' size and refilled; the old buffer is retired
    /// through `lifetimes` (frames in flight may read it). Meshes this frame already drew
    /// from move too; recording reads their new places.
    func resident(_ draw: MeshDraw, frame: UInt64, device: VulkanDevice,
                  lifetimes: LifetimeTracker) throws(RenderError) -> GPUMesh {
        if let mesh = meshes[draw.id] {
            mesh.lastFrame = frame
            return mesh
        }
        let mesh = GPUMesh(draw.mesh, lastFrame: frame)
        if let placed = arena.place(mesh.vertices, mesh.indices) {
            (mesh.vertexOffset, mesh.firstIndex) = placed
        } else {
            let live = meshes.values.reduce(MeshArena.size(vertexCount: mesh.vertices.count, indexCount: mesh.indexCount)) {
                $0 + MeshArena.size(vertexCount: $1.vertices.count, indexCount: $1.indexCount)
            }
            if let old = try arena.rebuild(bytes: 2 * live, device: device) { lifetimes.retire(.buffer(old)) }
            changes += 1
            for placedMesh in meshes.values + [mesh] {
                guard let placed = arena.place(placedMesh.vertices, placedMesh.indices) else {
                    preconditionFailure("a rebuilt mesh arena holds every live mesh")
                }
                (placedMesh.vertexOffset, placedMesh.firstIndex) = placed
            }
        }
        meshes[draw.id] = mesh
        uploads += 1
        return mesh
    }

    /// Forgets meshes no frame has used for `idleFrames` frames (checked every 60 frames);
    /// their arena space is reclaimed when the arena is next rebuilt.
    func forgetIdle(frame: UInt64) {
        guard frame % 60 == 0 else { return }
        for (id, mesh) in meshes where frame - mesh.lastFrame > Self.idleFrames {
            meshes[id] = nil
            changes += 1
        }
    }

    func destroy(_ device: VulkanDevice) {
        arena.destroy(device)
        meshes.removeAll()
    }
}
