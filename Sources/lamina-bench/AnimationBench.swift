import Foundation

/// `lamina-bench animation`: not written yet.
func runAnimationBench(_ arguments: [String]) {
    FileHandle.standardError.write(Data("lamina-bench animation: not implemented yet\n".utf8))
    exit(1)
}
