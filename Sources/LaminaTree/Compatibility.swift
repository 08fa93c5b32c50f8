import LaminaModel

/// The old name of `LayerChange` (issue 23 item 4 renamed it and moved it to LaminaModel),
/// kept while branches written before the rename (the retained draw-list work's tests) merge.
/// Remove once nothing spells `LaminaTree.Operation`.
@available(*, deprecated, renamed: "LayerChange")
public typealias Operation = LayerChange
