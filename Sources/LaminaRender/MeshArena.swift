import CVulkan
import LaminaGeometry

/// Every GPU mesh in one host-visible buffer, so that a pass binds its vertex and index
/// buffers once and each mesh is a `vkCmdDrawIndexed` with its own `firstIndex` and
/// `vertexOffset` (on lavapipe, rebinding buffers per mesh cost about 25 µs a mesh).
///
/// Space is handed out front to back and never reused in place: a retired mesh's range stays
/// until the arena is full; then `rebuild` copies the live meshes into a new, larger buffer
/// (from their CPU arrays) and the old buffer is retired like any object a frame may still
/// read. The mesh shader also reads the buffer as storage (set 1: a coverage mesh's tiles and
/// edges follow its quad). Render thread only.
final class MeshArena {
    /// The buffer, nil before the first mesh.
    private(set) var buffer: VulkanBuffer?
    /// Bytes handed out so far.
    private var used = 0
    /// Smallest buffer made.
    static let minimumBytes = 256 * 1024

    /// Bytes `vertices` and `indices` take: vertices first (16-byte `MeshVertex`es), then the
    /// indices, padded to 16 bytes so the next mesh's vertices stay aligned.
    static func size(vertexCount: Int, indexCount: Int) -> Int {
        vertexCount * MemoryLayout<MeshVertex>.stride + (indexCount * 4 + 15) / 16 * 16
    }

    /// Copies the arrays into free space and returns where they are (`vertexOffset` in
    /// vertices, `firstIndex` in indices), or nil when there is no room.
    func place(_ vertices: [MeshVertex], _ indices: [UInt32]) -> (vertexOffset: Int, firstIndex: Int)? {
        let bytes = Self.size(vertexCount: vertices.count, indexCount: indices.count)
        guard let buffer, used + bytes <= buffer.size else { return nil }
        let vertexBytes = vertices.count * MemoryLayout<MeshVertex>.stride
        // SAFETY: [used, used + bytes) is inside the buffer and no submitted frame reads it (space
        // is never handed out twice).
        vertices.withUnsafeBytes { buffer.write("mesh arena (vertices)", at: used, from: $0.baseAddress!, count: vertexBytes) }
        indices.withUnsafeBytes {
            buffer.write("mesh arena (indices)", at: used + vertexBytes, from: $0.baseAddress!, count: indices.count * 4)
        }
        let placed = (vertexOffset: used / MemoryLayout<MeshVertex>.stride, firstIndex: (used + vertexBytes) / 4)
        used += bytes
        return placed
    }

    /// Replaces the buffer with an empty one of at least `bytes` and returns the old one, which
    /// the caller retires (frames in flight may still read it). Live meshes must then be
    /// placed again.
    func rebuild(bytes: Int, device: VulkanDevice) throws(RenderError) -> VulkanBuffer? {
        let new = try VulkanBuffer(device: device, size: max(bytes, Self.minimumBytes),
                                   usage: mapFlags(VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
                                                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT))
        let old = buffer
        buffer = new
        used = 0
        return old
    }

    func destroy(_ device: VulkanDevice) {
        buffer?.destroy(device)
        buffer = nil
    }
}
