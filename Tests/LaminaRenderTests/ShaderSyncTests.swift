import Foundation
import LaminaFrame
import Testing
import TestSupport
@testable import LaminaRender

/// The shaders LaminaRender is built with: the SPIR-V compiled in (by the ShaderCompiler plugin
/// at build time, from `shaders/` through `scripts/gen-shaders`) is what glslc makes of
/// `shaders/` now, and the pipeline table (`shaders/variants.list`) gives every
/// `PipelineVariant` modules that declare the specialization constants that tell it apart.
/// Without glslc these tests fail (the build needs it too; scripts/bootstrap installs it).
@Suite("Shaders")
struct ShaderSyncTests {
    static let repository = repositoryRoot
    /// glslc in PATH, else /usr/bin/glslc (where the plugin looks too).
    static var glslcPath: String? { executableInPath("glslc", fallbacks: ["/usr/bin/glslc"]) }

    @Test func glslcIsInstalled() {
        #expect(Self.glslcPath != nil, "glslc is not installed: run scripts/bootstrap (apt install glslc)")
    }

    /// Every module in the build equals glslc's output for it today, and the list has no
    /// module the build lacks.
    @Test func builtModulesMatchTheSources() throws {
        let glslc = try #require(Self.glslcPath, "glslc is not installed: run scripts/bootstrap (apt install glslc)")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("lamina-spv-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = Process()
        process.executableURL = Self.repository.appendingPathComponent("scripts/gen-shaders")
        process.arguments = ["--spv", directory.path]
        process.environment = ProcessInfo.processInfo.environment.merging(["GLSLC": glslc]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "scripts/gen-shaders --spv failed")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".spv") }
        #expect(Set(files.map { String($0.dropLast(4)) }) == Set(Shaders.modules.map(\.name)))
        for (name, code) in Shaders.modules {
            let data = try Data(contentsOf: directory.appendingPathComponent("\(name).spv"))
            let words = data.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
            #expect(words == code, "\(name): the built SPIR-V differs from shaders/ (rebuild)")
        }
    }

    /// The constant ids a module declares (`OpDecorate … SpecId n`).
    static func specializationIDs(_ words: [UInt32]) -> Set<UInt32> {
        var ids: Set<UInt32> = []
        var i = 5
        while i < words.count {
            let count = Int(words[i] >> 16), opcode = words[i] & 0xFFFF
            if count == 0 { break }
            if opcode == 71, count >= 4, words[i + 2] == 1 { ids.insert(words[i + 3]) }  // OpDecorate … SpecId
            i += count
        }
        return ids
    }

    /// Each variant's row: its modules are in the list; its constants are its kind (a sharp
    /// gradient's type: axial 2, radial 3, conic 4) and whether it is a sharp gradient; the
    /// modules declare the constants that tell apart the variants sharing them; clipped and
    /// unclipped variants use different fragment modules (the clipped ones read the clip
    /// buffer). Modules are shared where interfaces agree: the rows use no more modules than
    /// there are pipelines, although the lean image pipelines (kind 12) have four of their own
    /// (the blurred shadow's passes and group opacity have modules of their own too).
    @Test func everyVariantHasItsModulesAndConstants() throws {
        let modules = Dictionary(uniqueKeysWithValues: Shaders.modules.map { ($0.name, $0.code) })
        let sharpGradient: [RectInstance.Kind: UInt32] = [.axialSharp: 2, .radialSharp: 3, .conicSharp: 4]
        var users: [String: Set<UInt32>] = [:]  // fragment module → the kind constants of its pipelines
        var used: Set<String> = []
        for variant in PipelineVariant.all {
            let row = ShaderTable.row(variant)
            used.formUnion([row.vertexName, row.fragmentName])
            #expect(modules[row.vertexName] == row.vertex, "\(variant)")
            #expect(modules[row.fragmentName] == row.fragment, "\(variant)")
            let kind = sharpGradient[variant.kind] ?? UInt32(variant.kind.rawValue)
            #expect(ShaderTable.specialization(variant) == [kind, sharpGradient[variant.kind] != nil ? 1 : 0],
                    "\(variant)")
            if sharpGradient[variant.kind] != nil {
                #expect(Self.specializationIDs(row.fragment).contains(1), "\(variant): SHARP")
                #expect(Self.specializationIDs(row.vertex).contains(1), "\(variant): SHARP")
            }
            let other = ShaderTable.row(PipelineVariant(kind: variant.kind, clipped: !variant.clipped))
            #expect(other.fragmentName != row.fragmentName, "\(variant): clipped and unclipped share a fragment module")
            users[row.fragmentName, default: []].insert(kind)
        }
        for (name, kinds) in users where kinds.count > 1 {
            #expect(Self.specializationIDs(modules[name] ?? []).contains(0), "\(name) serves kinds \(kinds.sorted()): KIND")
        }
        #expect(used.count <= PipelineVariant.all.count)
    }

    /// The additive variants (ONE/ONE blending, an additive emitter's particles) are the
    /// particle kinds' pipelines again, clipped and not, with the same modules and constants:
    /// only the blend state differs.
    @Test func additiveVariantsShareTheirSourceOverRows() {
        let additive = PipelineVariant.all.filter(\.additive)
        #expect(additive.count == PipelineVariant.additiveKinds.count * 2)
        #expect(Set(additive.map(\.kind)) == [.rect, .sharp, .image, .imageSharp])
        for variant in additive {
            let plain = ShaderTable.row(PipelineVariant(kind: variant.kind, clipped: variant.clipped))
            let row = ShaderTable.row(variant)
            #expect(row.vertexName == plain.vertexName && row.fragmentName == plain.fragmentName, "\(variant)")
            #expect(ShaderTable.specialization(variant)
                    == ShaderTable.specialization(PipelineVariant(kind: variant.kind, clipped: variant.clipped)))
            #expect(variant.index >= PipelineVariant.plainCount)
        }
    }
}
