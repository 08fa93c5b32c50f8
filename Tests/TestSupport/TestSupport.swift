// Shared test helpers, used by every test target:
// - PixelComparator.swift: fuzzy comparison against committed reference PNGs, with explicit limits;
// - ReferenceManifest.swift: which program drew each reference (only self-made ones regenerate);
// - PixelChecks.swift: pixels as integers and `expectPixel`, `expectMatchesReference`;
// - SeededRandom.swift: the deterministic generator of seeded test inputs and fuzzing;
// - TestScene.swift: trees built from changes (client 1 connected), a layer at a frame, a
//   tree's draw list (no GPU);
// - ManualClock.swift: a compositor clock on a fake monotonic source the test moves;
// - Repository.swift: the repository's root folder, and an executable found in PATH;
// - DaemonScene.swift: the daemon tests' scene built through the client library.
// A real daemon for tests (`TestDaemon`, `Recorder`) is in Tests/DaemonTestSupport.
