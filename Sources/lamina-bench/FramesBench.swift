import Foundation

/// `lamina-bench frames`: not written yet.
func runFramesBench(_ arguments: [String]) {
    FileHandle.standardError.write(Data("lamina-bench frames: not implemented yet\n".utf8))
    exit(1)
}
