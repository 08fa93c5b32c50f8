import Foundation
import PackagePlugin

/// Builds LaminaRender's SPIR-V from `shaders/` at build time: one command that runs
/// scripts/gen-shaders (glslc over every module in shaders/variants.list) into this plugin's
/// work directory, whose Swift file (`Shaders`, `ShaderTable.row`) is compiled into the target.
/// It reruns when anything in shaders/ or the script changes. glslc comes from PATH or
/// /usr/bin (scripts/bootstrap installs it); without it the build stops here, saying so.
@main
struct ShaderCompiler: BuildToolPlugin {
    struct GlslcNotFound: Error, CustomStringConvertible {
        var description: String {
            "ShaderCompiler: glslc not found in PATH or /usr/bin: run scripts/bootstrap (apt install glslc)"
        }
    }

    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let root = context.package.directoryURL
        let shaders = root.appending(path: "shaders")
        let script = root.appending(path: "scripts/gen-shaders")
        let output = context.pluginWorkDirectoryURL.appending(path: "Shaders+Generated.swift")
        let sources = try FileManager.default.contentsOfDirectory(at: shaders, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.path < $1.path }
        return [
            .buildCommand(
                displayName: "Compiling shaders/ (shaders/variants.list) with glslc",
                executable: URL(fileURLWithPath: "/bin/bash"),
                arguments: [script.path, output.path],
                environment: ["GLSLC": try glslc().path],
                inputFiles: sources + [script],
                outputFiles: [output])
        ]
    }

    /// glslc in PATH, else /usr/bin/glslc.
    func glslc() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/glslc" } + ["/usr/bin/glslc"]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw GlslcNotFound()
        }
        return URL(fileURLWithPath: found)
    }
}
