// Shared test helpers: scene builders, manual clocks and pixel comparators
// (PixelComparator.swift: fuzzy comparison against committed reference PNGs).
import LaminaGeometry
import LaminaPNG
