import Foundation

/// `lamina-bench tree`: not written yet.
func runTreeBench(_ arguments: [String]) {
    FileHandle.standardError.write(Data("lamina-bench tree: not implemented yet\n".utf8))
    exit(1)
}
