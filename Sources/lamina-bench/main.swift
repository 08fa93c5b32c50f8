// lamina-bench: release-build measurements, printed as JSON.
//
//   lamina-bench animation            animation engine evaluation cost
//   lamina-bench tessellate           fills and strokes against GLU and libtess2
//   lamina-bench tree                 commit apply and presentation cost, memory per layer
//   lamina-bench frames [--layers N] [--size WxH] [--seconds S]   the render thread
//   lamina-bench images [--layers N] [--size WxH] [--seconds S]   frames with plain layers, then image layers
//   lamina-bench build [--layers N] [--frames F] [--mix KIND] [--drive D]   presentation + draw list CPU time, no GPU
//   lamina-bench plan [--layers N] [--size WxH] [--mix KIND]               the frame plan's passes and pixels, no GPU
//   lamina-bench upload [--layers N] [--frames F] [--target WxH]   OffscreenRenderer.render's CPU phases
//   lamina-bench templates [--frames F]   path templates: evaluation + tessellation, mesh cache hits
//   lamina-bench text [--layers N] [--size WxH] [--seconds S]   shaping and layout rate, glyph atlas
//                                     rasterization and upload; frames with plain layers, then text layers
//   lamina-bench damage [--layers N] [--size WxH] [--seconds S]   one small animated layer over N static ones
//   lamina-bench protocol [--seconds S] [--layers N] [--batch B]   the socket and client library
//   lamina-bench flood [--seconds S] [--layers N] [--rounds R]   a getTree flooder beside a good client
//   lamina-bench soak --socket PATH --pid PID [--seconds S] [--clients N]   (scripts/soak)
//   lamina-bench memory [--layers N] [--trim] [--hidden]   a daemon's resident memory per plain layer (child process)
//   lamina-bench emitters [--particles N,N,…] [--frames F] [--size WxH] [--contents] [--render-mode M] [--startup]
//                                                                           particles per 120 Hz frame, cost per particle; start-up
//   lamina-bench tiled [--file PATH] [--side N] [--size WxH] [--frames F] [--budget MiB]   a tiled layer over a 32768² PNG panned and zoomed
//   lamina-bench lottie-grid [--count N] [--size WxH] [--seconds S] [--plan] [--dump-plan] [--plan-time T] [FILE …]   N Lottie animations at once (daemon + client process)
//   lamina-bench surfaces [--seconds S]   shared-memory surfaces: a 1080p stream, 16 small ones at 60 Hz, 4K with 64×64 damage, memcpy
import Foundation
import LaminaRender

// The process's allocator policy, as the daemon's (`laminad`): a renderer on lavapipe may keep
// its driver profile's freed heap (`DriverProfile.keptFreedHeap`), in the benchmarks' renderers
// and in `memory`'s daemon child alike.
HeapTrim.adopt(.driverProfile)

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: lamina-bench animation|tessellate|tree|frames|images|build|plan|upload|templates|text|damage|protocol|flood|soak|memory|trace|lottie|lottie-grid|surfaces|emitters|tiled [options]"
guard let command = arguments.first else {
    FileHandle.standardError.write(Data((usage + "\n").utf8)); exit(2)
}
let rest = Array(arguments.dropFirst())
switch command {
case "animation": runAnimationBench(rest)
case "tessellate": runTessellateBench(rest)
case "tree": runTreeBench(rest)
case "frames": runFramesBench(rest)
case "images":
    // Image layers beside plain layers, in the same run (one JSON line each).
    runFramesBench(rest + ["--mix", "plain"])
    runFramesBench(rest + ["--mix", "image"])
case "build": runBuildBench(rest)
case "plan": runPlanBench(rest)
case "upload": runUploadBench(rest)
case "templates": runTemplatesBench(rest)
case "text":
    // LaminaText's CPU figures, then frames of text layers beside plain layers in the same run.
    runTextBench([])
    runFramesBench(rest + ["--mix", "plain"])
    runFramesBench(rest + ["--mix", "text"])
case "damage": runDamageBench(rest)
case "protocol": runProtocolBench(rest)
case "flood": runFloodBench(rest)
case "soak": runSoakBench(rest)
case "memory": runMemoryBench(rest)
case "trace": runTraceBench(rest)
case "lottie": runLottieBench(rest)
case "lottie-grid": runLottieGridBench(rest)
case "lottie-grid-client": runLottieGridClient(rest)   // lottie-grid's client
case "surfaces": runSurfaceBench(rest)
case "emitters": runEmitterBench(rest)
case "tiled": runTiledBench(rest)
case "daemon-child": runDaemonChild(rest)   // memory's daemon
default:
    FileHandle.standardError.write(Data((usage + "\n").utf8)); exit(2)
}
