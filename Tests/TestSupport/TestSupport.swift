// Shared test helpers, used by every test target:
// - PixelComparator.swift: fuzzy comparison against committed reference PNGs, with explicit limits;
// - ReferenceManifest.swift: which program drew each reference (only self-made ones regenerate);
// - PixelChecks.swift: pixels as integers and `expectPixel`, `expectMatchesReference`;
// - SeededRandom.swift: the deterministic generator of seeded test inputs and fuzzing.
