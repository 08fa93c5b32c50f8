import Foundation

/// `lamina-bench tessellate`: not written yet.
func runTessellateBench(_ arguments: [String]) {
    FileHandle.standardError.write(Data("lamina-bench tessellate: not implemented yet\n".utf8))
    exit(1)
}
