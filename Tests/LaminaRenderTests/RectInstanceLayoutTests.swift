import CVulkan
import LaminaFrame
import Testing
import LaminaGeometry
@testable import LaminaRender

/// `RectInstance` (Swift) against the vertex inputs of the `rect.vert` modules of `shaders/variants.list`
/// (SPIR-V) and the pipeline's attribute table.
@Suite("RectInstance layout")
struct RectInstanceLayoutTests {
    /// Packed vec4s, in the order `fields` lists them, each location once.
    @Test func swiftLayoutIsPackedVec4s() {
        #expect(MemoryLayout<RectInstance>.size == 16 * RectInstance.fields.count)
        #expect(MemoryLayout<RectInstance>.stride == 16 * RectInstance.fields.count)
        for (index, field) in RectInstance.fields.enumerated() {
            #expect(MemoryLayout<RectInstance>.offset(of: field.keyPath) == 16 * index,
                    "field at location \(field.location)")
        }
        #expect(RectInstance.fields.map(\.location).sorted() == Array(0..<UInt32(RectInstance.fields.count)))
    }

    /// The byte offset of the field at `location`.
    static func offset(_ location: UInt32) -> Int? {
        RectInstance.fields.first { $0.location == location }.flatMap { MemoryLayout<RectInstance>.offset(of: $0.keyPath) }
    }

    /// Each kind's stride in the ring is exactly the prefix its variants' vertex shaders read
    /// (from the SPIR-V): every input lies inside it, and the last vec4 of the prefix is read
    /// (none wasted). The numbers the ring's design promises: sharp rects and meshes 96
    /// bytes, plain rects 128, shadows 144, image and shape pieces 176, gradients 224.
    @Test func eachKindsStrideIsThePrefixItsShadersRead() throws {
        var end: [RectInstance.Kind: Int] = [:]
        for variant in PipelineVariant.all {
            var inputs = try SPIRV.locatedInputs(VulkanPipeline.shaders(variant).vertex)
            if variant.kind == .mesh { inputs[VulkanPipeline.meshVertexLocation] = nil }
            let stride = RectInstance.stride(variant.kind)
            #expect(VulkanPipeline.instanceStride(variant) == stride)
            #expect(stride % 16 == 0 && stride <= MemoryLayout<RectInstance>.stride)
            for location in inputs.keys {
                let offset = try #require(Self.offset(location), "location \(location)")
                #expect(offset + 16 <= stride, "\(variant): location \(location) at \(offset) beyond the stride \(stride)")
                end[variant.kind] = max(end[variant.kind] ?? 0, offset + 16)
            }
        }
        for kind in RectInstance.Kind.allCases {
            #expect(end[kind] == RectInstance.stride(kind), "\(kind)")
        }
        let promised: [RectInstance.Kind: Int] = [
            .sharp: 96, .mesh: 96, .rect: 128, .shadow: 144, .image: 176, .shape: 176, .imageSharp: 176,
            .axial: 224, .radial: 224, .conic: 224, .axialSharp: 224, .radialSharp: 224, .conicSharp: 224,
            .maskedAxial: 224, .maskedRadial: 224,
        ]
        for (kind, bytes) in promised { #expect(RectInstance.stride(kind) == bytes, "\(kind)") }
        #expect(RectInstance.minimumStride == promised.values.min())
        // The blur's quad is a sharp rect's instance: it reads inside that stride.
        for location in try SPIRV.locatedInputs(Shaders.shadowVert).keys {
            #expect(try #require(Self.offset(location)) + 16 <= RectInstance.stride(.sharp), "blur location \(location)")
        }
    }

    /// A packed span stores the first `stride(kind)` bytes of each instance, one after the
    /// other; a whole span the whole struct.
    @Test func packedSpansStoreEachKindsPrefix() {
        let bytes = 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0xEE, count: bytes)
        var span = RectInstance.Span(packed: buffer, capacity: 240)
        var first = RectInstance(), second = RectInstance()
        for k in 0..<14 {
            first[keyPath: RectInstance.fields[k].keyPath as! WritableKeyPath<RectInstance, SIMD4<Float>>] = SIMD4(repeating: Float(k + 1))
            second[keyPath: RectInstance.fields[k].keyPath as! WritableKeyPath<RectInstance, SIMD4<Float>>] = SIMD4(repeating: Float(k + 100))
        }
        #expect(span.hasRoom(2, .sharp) && span.hasRoom(1, .rect) && !span.hasRoom(2, .rect))
        span.append(first, .sharp)
        span.append(second, .rect)
        #expect(span.used == 96 + 128)
        #expect(!span.hasRoom(1, .sharp) && span.hasRoom(1, .mesh) == false)
        let floats = buffer.assumingMemoryBound(to: Float.self)
        for k in 0..<6 { #expect(floats[4 * k] == Float(k + 1), "first, vec4 \(k)") }
        for k in 0..<8 { #expect(floats[24 + 4 * k] == Float(k + 100), "second, vec4 \(k)") }
        #expect(buffer.load(fromByteOffset: 224, as: UInt8.self) == 0xEE)  // nothing past them
    }

    /// The motion part (`setMotion`, `writeMotion`) is the first three vec4s, which every
    /// variant's vertex shader (and the blur's) reads.
    @Test func motionPartIsTheFirstFortyEightBytes() {
        #expect(RectInstance.motionLocations == [0, 1, 2])
        #expect(MemoryLayout<RectInstance>.offset(of: \RectInstance.clipW)! + 16 == 48)
        for variant in PipelineVariant.all {
            #expect(VulkanPipeline.shaders(variant).instanceLocations.isSuperset(of: RectInstance.motionLocations), "\(variant)")
        }
        #expect(VulkanPipeline.blurInstanceLocations.isSuperset(of: RectInstance.motionLocations))
    }

    /// Each variant's vertex shader reads exactly the locations its pipeline feeds, every one
    /// a vec4 field; together the analytic variants read every field.
    @Test func variantShaderInputsMatchTheirAttributes() throws {
        var read: Set<UInt32> = []
        for variant in PipelineVariant.all {
            let (vertex, _, locations) = VulkanPipeline.shaders(variant)
            var inputs = try SPIRV.locatedInputs(vertex)
            if variant.kind == .mesh { inputs[VulkanPipeline.meshVertexLocation] = nil }
            #expect(Set(inputs.keys) == locations, "\(variant)")
            for (location, type) in inputs {
                #expect(type == .init(components: 4, bits: 32), "input at location \(location) must be a vec4")
            }
            if variant.kind != .mesh { read.formUnion(locations) }
        }
        #expect(read == Set(RectInstance.fields.map(\.location)))
        #expect(PipelineVariant.all.map(\.index) == Array(0..<PipelineVariant.all.count))
    }

    @Test func meshShaderInputsAreTheFieldsAndTheVertex() throws {
        let inputs = try SPIRV.locatedInputs(Shaders.meshClippedVert)
        #expect(inputs.keys.sorted() == (VulkanPipeline.meshInstanceLocations.sorted() + [VulkanPipeline.meshVertexLocation]))
        #expect(MemoryLayout<LaminaGeometry.MeshVertex>.stride == 16)
    }

    /// The lean image pipeline (kind 12: pieces under an affine transform, so clip w is the
    /// constant m44) interpolates its texture position (location 0) without perspective
    /// division, declared so in both stages (a mismatch would leave it to the driver); the
    /// pipelines that may draw under perspective (pieces, kind 6; plain rects) keep it
    /// perspective-correct.
    @Test func leanImageTexturePositionIsInterpolatedWithoutPerspective() throws {
        for module in [Shaders.rectImageVert, Shaders.rectImageClippedVert] {
            #expect(try SPIRV.noPerspectiveLocations(module, storageClass: SPIRV.output).contains(0))
        }
        for module in [Shaders.rectImageFrag, Shaders.rectImageClippedFrag] {
            #expect(try SPIRV.noPerspectiveLocations(module, storageClass: SPIRV.input).contains(0))
        }
        for module in [Shaders.rectPieceVert, Shaders.rectPlainVert] {
            #expect(try !SPIRV.noPerspectiveLocations(module, storageClass: SPIRV.output).contains(0))
        }
        for module in [Shaders.rectPieceFrag, Shaders.rectFrag] {
            #expect(try !SPIRV.noPerspectiveLocations(module, storageClass: SPIRV.input).contains(0))
        }
        // (The edge distances were noperspective already: the reader sees location 11 too.)
        #expect(try SPIRV.noPerspectiveLocations(Shaders.rectImageFrag, storageClass: SPIRV.input).contains(11))
    }

    /// The attribute table: each location at its field's offset, the same in every stride.
    @Test func pipelineAttributesMatchFields() {
        let attributes = VulkanPipeline.rectAttributes()
        #expect(attributes.count == RectInstance.fields.count)
        for (index, (attribute, field)) in zip(attributes, RectInstance.fields).enumerated() {
            #expect(Int(attribute.offset) == 16 * index)
            #expect(attribute.location == field.location)
            #expect(attribute.binding == 0)
            #expect(attribute.format == VK_FORMAT_R32G32B32A32_SFLOAT)
            #expect(Int(attribute.offset) == MemoryLayout<RectInstance>.offset(of: field.keyPath))
        }
    }
}

/// Just enough of a SPIR-V reader to list a shader's `layout(location = n) in` variables.
enum SPIRV {
    struct FloatVector: Equatable { var components: Int; var bits: Int }
    struct Malformed: Error {}

    /// SPIR-V storage classes (`OpVariable`'s operand).
    static let input: UInt32 = 1, output: UInt32 = 3

    /// Calls `body` with each instruction's opcode and operands, after the header.
    static func forEachInstruction(_ words: [UInt32], _ body: (UInt32, [UInt32]) -> Void) throws {
        guard words.count > 5, words[0] == 0x0723_0203 else { throw Malformed() }
        var i = 5
        while i < words.count {
            let count = Int(words[i] >> 16), opcode = words[i] & 0xFFFF
            guard count > 0, i + count <= words.count else { throw Malformed() }
            body(opcode, Array(words[(i + 1)..<(i + count)]))
            i += count
        }
    }

    /// The locations of `storageClass` variables decorated `NoPerspective`.
    static func noPerspectiveLocations(_ words: [UInt32], storageClass: UInt32) throws -> Set<UInt32> {
        var locations: [UInt32: UInt32] = [:]   // id → location
        var noPerspective: Set<UInt32> = []     // ids
        var variables: Set<UInt32> = []         // ids of the storage class
        try forEachInstruction(words) { opcode, operands in
            switch opcode {
            case 71 where operands.count >= 3 && operands[1] == 30:  // OpDecorate … Location n
                locations[operands[0]] = operands[2]
            case 71 where operands.count >= 2 && operands[1] == 13:  // OpDecorate … NoPerspective
                noPerspective.insert(operands[0])
            case 59 where operands.count >= 3 && operands[2] == storageClass:  // OpVariable
                variables.insert(operands[1])
            default: break
            }
        }
        return Set(noPerspective.intersection(variables).compactMap { locations[$0] })
    }

    static func locatedInputs(_ words: [UInt32]) throws -> [UInt32: FloatVector] {
        var locations: [UInt32: UInt32] = [:]        // id → location
        var inputVariables: [UInt32: UInt32] = [:]   // id → pointer type
        var pointers: [UInt32: UInt32] = [:]         // pointer type → pointee
        var vectors: [UInt32: (UInt32, Int)] = [:]   // vector type → (component type, count)
        var floats: [UInt32: Int] = [:]              // float type → bits
        try forEachInstruction(words) { opcode, operands in
            switch opcode {
            case 71 where operands.count >= 3 && operands[1] == 30:  // OpDecorate … Location n
                locations[operands[0]] = operands[2]
            case 59 where operands.count >= 3 && operands[2] == input:  // OpVariable … Input
                inputVariables[operands[1]] = operands[0]
            case 32 where operands.count >= 3:                       // OpTypePointer
                pointers[operands[0]] = operands[2]
            case 23 where operands.count >= 3:                       // OpTypeVector
                vectors[operands[0]] = (operands[1], Int(operands[2]))
            case 22 where operands.count >= 2:                       // OpTypeFloat
                floats[operands[0]] = Int(operands[1])
            default: break
            }
        }
        var result: [UInt32: FloatVector] = [:]
        for (variable, pointer) in inputVariables {
            guard let location = locations[variable] else { continue }  // built-ins
            guard let pointee = pointers[pointer], let (component, n) = vectors[pointee],
                  let bits = floats[component] else { throw Malformed() }
            result[location] = FloatVector(components: n, bits: bits)
        }
        return result
    }
}
