import CVulkan
import LaminaFrame
import Testing
import LaminaGeometry
@testable import LaminaRender

/// `RectInstance` (Swift) against the vertex inputs of the `shaders/rect*.vert` variants
/// (SPIR-V) and the pipeline's attribute table.
@Suite("RectInstance layout")
struct RectInstanceLayoutTests {
    @Test func swiftLayoutIsPackedVec4s() {
        #expect(MemoryLayout<RectInstance>.size == 16 * RectInstance.fields.count)
        #expect(MemoryLayout<RectInstance>.stride == 16 * RectInstance.fields.count)
        for field in RectInstance.fields {
            #expect(MemoryLayout<RectInstance>.offset(of: field.keyPath) == 16 * Int(field.location),
                    "field at location \(field.location)")
        }
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

    @Test func pipelineAttributesMatchFields() {
        let attributes = VulkanPipeline.rectAttributes()
        #expect(attributes.count == RectInstance.fields.count)
        for (attribute, field) in zip(attributes, RectInstance.fields) {
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

    static func locatedInputs(_ words: [UInt32]) throws -> [UInt32: FloatVector] {
        guard words.count > 5, words[0] == 0x0723_0203 else { throw Malformed() }
        var locations: [UInt32: UInt32] = [:]        // id → location
        var inputVariables: [UInt32: UInt32] = [:]   // id → pointer type
        var pointers: [UInt32: UInt32] = [:]         // pointer type → pointee
        var vectors: [UInt32: (UInt32, Int)] = [:]   // vector type → (component type, count)
        var floats: [UInt32: Int] = [:]              // float type → bits
        var i = 5
        while i < words.count {
            let count = Int(words[i] >> 16), opcode = words[i] & 0xFFFF
            guard count > 0, i + count <= words.count else { throw Malformed() }
            let operands = words[(i + 1)..<(i + count)].map { $0 }
            switch opcode {
            case 71 where operands.count >= 3 && operands[1] == 30:  // OpDecorate … Location n
                locations[operands[0]] = operands[2]
            case 59 where operands.count >= 3 && operands[2] == 1:   // OpVariable … Input
                inputVariables[operands[1]] = operands[0]
            case 32 where operands.count >= 3:                       // OpTypePointer
                pointers[operands[0]] = operands[2]
            case 23 where operands.count >= 3:                       // OpTypeVector
                vectors[operands[0]] = (operands[1], Int(operands[2]))
            case 22 where operands.count >= 2:                       // OpTypeFloat
                floats[operands[0]] = Int(operands[1])
            default: break
            }
            i += count
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
