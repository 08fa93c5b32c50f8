// swift-tools-version: 6.1
//
// Lamina — a layer-tree compositor daemon.
//
// Allowed dependency edges (they point only downward; never add one upward):
//
//   LaminaGeometry            (pure: vectors, matrices, transforms, colors, paths, tessellation)
//     ▲            ▲
//     │          LaminaExpression  (pure: path templates and expressions: parse, check, compile, evaluate)
//     │
//   LaminaAnimation           (pure: clock, media timing, timing functions, springs, animations)
//     ▲
//   LaminaModel               (pure: the vocabulary clients, the wire and the server share: layer
//     ▲                        ids and kinds, properties and their table, values, key paths,
//     │                        changes, commits, transaction settings and stack)
//     ├─────────────────────────────┐
//   LaminaTree                    LaminaWire   (pure: protocol messages, encoding, framing, scene-file JSON)
//   (pure, server side: model       ▲    ▲
//    tree, packets, render tree,    │    │
//    presentation plan and          │  Lamina     (client library: on LaminaWire and LaminaModel,
//    snapshots, node store,         │    ▲         never LaminaTree)
//    hit testing)                   │    │
//     ▲     ▲                       │  LaminaSceneTree (a scene file evaluated on the trees without
//     │     └───────────────────────┼──┘               a daemon: laminactl's query/hit/render, tests)
//   LaminaFrame                     │
//   (pure: the frame as data: draw  │
//    list and builder, instances,   │
//    timing, stats)                 │
//     ▲                             │
//   LaminaRender                    │         (only importer of CVulkan)
//     ▲                             │
//   LaminaServer ───────────────────┘         (sockets, sessions, config, daemon wiring)
//
//   LaminaText (HarfBuzz, FreeType, fontconfig, ICU; on LaminaGeometry) is a leaf: fonts,
//   shaping, layout and the glyph atlas as CPU data; no Vulkan. LaminaFrame (text layers'
//   glyph items) and LaminaServer (measureText) use it.
//   LaminaGallery (on LaminaModel, LaminaWire, LaminaLottie, Lamina): the demo gallery's pages as changes.
//   LaminaLottie (on LaminaWire, LaminaGeometry: offsets and booleans of paths): Lottie files mapped onto
//   scene-file JSON; Lamina's Scene uses it.
//   LaminaPNG (CPNG) is a leaf used by Server, laminactl and the tests.
//   LaminaImage (CLaminaImage: libpng, libjpeg-turbo, libwebp) is a leaf: image decoding.
//   CGLU and CTess2 are peers used only by lamina-bench.
//   Executables are thin mains on top.
import PackageDescription

let package = Package(
    name: "Lamina",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Lamina", targets: ["Lamina"]),
        .executable(name: "laminad", targets: ["laminad"]),
        .executable(name: "lamina-viewer", targets: ["lamina-viewer"]),
        .executable(name: "laminactl", targets: ["laminactl"]),
        .executable(name: "lamina-bench", targets: ["lamina-bench"]),
        .executable(name: "lamina-demo", targets: ["lamina-demo"]),
    ],
    targets: [
        // System libraries (Debian packages, found through pkg-config).
        .systemLibrary(name: "CVulkan", pkgConfig: "vulkan",
                       providers: [.apt(["libvulkan-dev", "mesa-vulkan-drivers"])]),
        // lamina-viewer alone uses CGLFW (the window); LaminaRender takes its surface through `WindowSurface`.
        .systemLibrary(name: "CGLFW", pkgConfig: "glfw3", providers: [.apt(["libglfw3-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CGLU", pkgConfig: "glu", providers: [.apt(["libglu1-mesa-dev"])]),
        .systemLibrary(name: "CTess2", providers: [.apt(["libtess2-tulip-5.4"])]),
        .systemLibrary(name: "CHarfBuzz", pkgConfig: "harfbuzz", providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CFontconfig", pkgConfig: "fontconfig", providers: [.apt(["libfontconfig-dev"])]),

        // ICU (libicu-dev) behind a small C API: see Sources/CICU/include/lamina_icu.h for why.
        .target(name: "CICU", linkerSettings: [.linkedLibrary("icuuc"), .linkedLibrary("icudata")]),

        // Software prefetch: a header of static inline functions around the compiler's
        // builtin (no library), for LaminaTree's and LaminaFrame's per-frame loops.
        .target(name: "CPrefetch"),

        // Pure modules.
        .target(name: "LaminaGeometry", exclude: ["README.md"]),
        .target(name: "LaminaAnimation", dependencies: ["LaminaGeometry"], exclude: ["README.md"]),
        .target(name: "LaminaExpression", dependencies: ["LaminaGeometry"], exclude: ["README.md"]),
        .target(name: "LaminaModel", dependencies: ["LaminaGeometry", "LaminaAnimation", "LaminaExpression"],
                exclude: ["README.md", "Properties.table"]),
        .target(name: "LaminaTree", dependencies: ["LaminaModel", "LaminaAnimation", "LaminaExpression", "LaminaImage", "CPrefetch"],
                exclude: ["README.md"]),
        .target(name: "LaminaWire", dependencies: ["LaminaModel", "LaminaGeometry", "LaminaAnimation", "LaminaExpression"],
                exclude: ["README.md"]),
        .target(name: "LaminaPNG", dependencies: ["CPNG"], exclude: ["README.md"]),
        // Image decoding: a C shim over libpng, libjpeg-turbo and libwebp (libjpeg's longjmp
        // stays in C), and the Swift side (formats, limits, errors, contents geometry).
        .target(name: "CLaminaImage",
                linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("jpeg"), .linkedLibrary("webp")]),
        .target(name: "LaminaImage", dependencies: ["CLaminaImage"], exclude: ["README.md"]),
        .target(name: "LaminaFrame", dependencies: ["LaminaTree", "LaminaImage", "LaminaText"], exclude: ["README.md"]),
        .target(name: "LaminaText",
                dependencies: ["LaminaGeometry", "CHarfBuzz", "CFreeType", "CFontconfig", "CICU"],
                exclude: ["README.md"]),

        // GPU and daemon.
        // Its SPIR-V is built from shaders/ at build time (glslc, run by the ShaderCompiler plugin).
        .target(name: "LaminaRender", dependencies: ["LaminaFrame", "LaminaTree", "LaminaText", "CVulkan"], exclude: ["README.md"],
                plugins: ["ShaderCompiler"]),
        .plugin(name: "ShaderCompiler", capability: .buildTool()),
        .target(name: "LaminaServer", dependencies: ["LaminaWire", "LaminaModel", "LaminaTree", "LaminaFrame", "LaminaRender", "LaminaPNG", "LaminaExpression",
                                              "LaminaText"], exclude: ["README.md"]),
        // Lottie (Bodymovin) JSON mapped onto scene-file JSON: layers and keyframe animations.
        .target(name: "LaminaLottie", dependencies: ["LaminaWire", "LaminaGeometry"], exclude: ["README.md"]),
        .target(name: "Lamina", dependencies: ["LaminaWire", "LaminaModel", "LaminaExpression", "LaminaLottie"], exclude: ["README.md"]),
        // A scene file (the client library's `Scene`) evaluated on a render tree without a daemon.
        .target(name: "LaminaSceneTree", dependencies: ["Lamina", "LaminaTree"], exclude: ["README.md"]),

        // Executables: thin mains.
        .executableTarget(name: "laminad", dependencies: ["LaminaServer"], exclude: ["README.md"]),
        .executableTarget(name: "lamina-viewer", dependencies: ["LaminaServer", "LaminaRender", "Lamina", "LaminaWire", "CGLFW"],
                          exclude: ["README.md"]),
        .executableTarget(name: "laminactl", dependencies: ["Lamina", "LaminaSceneTree", "LaminaRender", "LaminaPNG"], exclude: ["README.md"]),
        // The demo gallery's pages as operations (I/O-free: lamina-demo sends them, tests apply them).
        .target(name: "LaminaGallery", dependencies: ["LaminaModel", "LaminaWire", "LaminaLottie", "Lamina"], exclude: ["README.md"]),
        .executableTarget(name: "lamina-demo", dependencies: ["Lamina", "LaminaGallery"], exclude: ["README.md"]),
        // The Swift example client (examples/swift), run by ExampleClientTests.
        .executableTarget(name: "lamina-example", dependencies: ["Lamina"], path: "examples/swift",
                          exclude: ["kiosk", "toplevel"]),
        // The status board a newcomer writes from docs/swift-client.md (examples/swift/kiosk),
        // run by KioskExampleTests; and what top-level code meets (TopLevelExampleTests).
        .executableTarget(name: "lamina-kiosk", dependencies: ["Lamina"], path: "examples/swift/kiosk"),
        .executableTarget(name: "lamina-toplevel", dependencies: ["Lamina"], path: "examples/swift/toplevel"),
        .executableTarget(name: "lamina-bench",
                          dependencies: ["LaminaGeometry", "LaminaAnimation", "LaminaTree",
                                         "LaminaFrame", "LaminaRender", "LaminaImage", "LaminaText", "CGLU", "CTess2",
                                         "Lamina", "LaminaServer", "LaminaLottie"],   // protocol, soak; lottie
                          exclude: ["README.md"]),

        // Tests.
        .target(name: "TestSupport",
                dependencies: ["LaminaGeometry", "LaminaAnimation", "LaminaModel", "LaminaTree", "LaminaFrame", "LaminaPNG", "Lamina"],
                path: "Tests/TestSupport"),
        // A real laminad on a temporary socket for tests (the client library's and the daemon's).
        .target(name: "DaemonTestSupport", dependencies: ["LaminaServer", "Lamina", "TestSupport"],
                path: "Tests/DaemonTestSupport"),
        .testTarget(name: "LaminaGeometryTests", dependencies: ["LaminaGeometry", "TestSupport"]),
        .testTarget(name: "LaminaAnimationTests", dependencies: ["LaminaAnimation", "TestSupport"]),
        .testTarget(name: "LaminaExpressionTests", dependencies: ["LaminaExpression", "TestSupport"]),
        .testTarget(name: "LaminaTextTests", dependencies: ["LaminaText", "LaminaPNG", "TestSupport"],
                    exclude: ["References"]),   // read from the source tree by #filePath
        .testTarget(name: "LaminaModelTests", dependencies: ["LaminaModel", "TestSupport"]),
        .testTarget(name: "LaminaTreeTests", dependencies: ["LaminaTree", "LaminaExpression", "TestSupport"]),
        .testTarget(name: "LaminaWireTests", dependencies: ["LaminaWire", "LaminaModel", "TestSupport"]),
        .testTarget(name: "LaminaPNGTests", dependencies: ["LaminaPNG", "TestSupport"]),
        .testTarget(name: "LaminaImageTests", dependencies: ["LaminaImage", "TestSupport"],
                    exclude: ["Images"]),   // test images, read from the source tree by #filePath
        .testTarget(name: "LaminaFrameTests", dependencies: ["LaminaFrame", "LaminaImage", "TestSupport"]),
        .testTarget(name: "LaminaRenderTests", dependencies: ["LaminaFrame", "LaminaRender", "LaminaImage", "TestSupport"],
                    exclude: ["References"]),   // read from the source tree by #filePath
        // The client library's own behaviour (scene files, template builder, typed layers, and
        // against a real daemon: events, completions, errors, queries).
        .testTarget(name: "LaminaTests",
                    dependencies: ["Lamina", "LaminaModel", "LaminaTree", "LaminaSceneTree", "LaminaServer", "LaminaLottie",
                                   "DaemonTestSupport", "TestSupport"]),
        .testTarget(name: "LaminaViewerTests", dependencies: ["LaminaServer", "LaminaRender", "Lamina", "LaminaPNG", "TestSupport"]),
        .testTarget(name: "LaminaServerTests",
                    dependencies: ["LaminaServer", "LaminaRender", "Lamina", "LaminaSceneTree", "LaminaGallery", "DaemonTestSupport",
                                   "TestSupport"],
                    exclude: ["Scenes", "FuzzCorpus", "Lottie"]),   // scene files, references, fuzz inputs and Lottie files, read from the source tree
    ],
    swiftLanguageModes: [.v6]
)
