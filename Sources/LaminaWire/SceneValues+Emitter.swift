import LaminaGeometry
import LaminaModel

// Emitter cells (`emitterCells`) as JSON: the scene format's CELL objects. The wire carries the
// same JSON as text (tag 16), so scene files, the wire and the client libraries read one form.

extension SceneValues {
    /// The keys a CELL may have besides its numbers (`EmitterCell.numberFields`).
    static let cellOtherKeys: Set<String> = ["name", "enabled", "contents", "contentsRect", "color",
                                             "minificationFilter", "magnificationFilter", "emitterCells"]

    /// A list of CELL objects (docs/scene-format.md, Emitter layers), checked against
    /// `EmitterCell.problem` (its limits included).
    public static func emitterCells(_ j: JSON, _ path: String) throws(SceneError) -> [EmitterCell] {
        let cells = try cellList(j, path, depth: 1, checked: true)
        if let problem = EmitterCell.problem(cells) { throw SceneError(path: path, problem) }
        return cells
    }

    /// The cells of a wire value (tag 16): its JSON read as `emitterCells(_:_:)` reads it but
    /// for the ranges and limits, which the model checks when the value is set (an
    /// `invalidValue` error, not a malformed message).
    public static func uncheckedEmitterCells(_ j: JSON) throws(SceneError) -> [EmitterCell] {
        try cellList(j, "emitterCells", depth: 1, checked: false)
    }

    private static func cellList(_ j: JSON, _ path: String, depth: Int, checked: Bool) throws(SceneError) -> [EmitterCell] {
        guard case .array(let a) = j else { throw SceneError(path: path, "must be a list of emitter cells") }
        guard !checked || a.isEmpty || depth <= EmitterCell.Limits.maxDepth else {
            throw SceneError(path: path, "cells nest at most \(EmitterCell.Limits.maxDepth) levels deep")
        }
        guard !checked || a.count <= EmitterCell.Limits.maxCells else {
            throw SceneError(path: path, "an emitter has at most \(EmitterCell.Limits.maxCells) cells")
        }
        var out: [EmitterCell] = []
        for (i, e) in a.enumerated() {
            let at = index(path, i)
            let allowed = cellOtherKeys.union(EmitterCell.numberFields.map(\.key))
            let f = try Fields(e, at, allowed: allowed)
            var cell = EmitterCell()
            if let v = f["name"] { cell.name = try string(v, f.at("name")) }
            if let v = f["enabled"] { cell.enabled = try bool(v, f.at("enabled")) }
            if let v = f["contents"], v != .null {
                let s = try string(v, f.at("contents"))
                guard !s.isEmpty else { throw SceneError(path: f.at("contents"), "must be an image name or null") }
                cell.contents = s
            }
            if let v = f["contentsRect"] { cell.contentsRect = try rect(v, f.at("contentsRect")) }
            if let v = f["color"] {
                // Any finite components on the wire (the model clamps the particles' colors);
                // a scene file's COLOR.
                if !checked, case .array(let c) = v, c.count == 4 {
                    let n = try numbers(v, f.at("color"))
                    cell.color = Color(n[0], n[1], n[2], n[3])
                } else {
                    cell.color = try nonNilColor(v, f.at("color"))
                }
            }
            func filter(_ key: String) throws(SceneError) -> ContentsFilter? {
                guard let v = f[key] else { return nil }
                let s = try string(v, f.at(key))
                guard let c = ContentsFilter(rawValue: s) else {
                    throw SceneError(path: f.at(key), "must be one of "
                                     + ContentsFilter.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
                }
                return c
            }
            if let c = try filter("minificationFilter") { cell.minificationFilter = c }
            if let c = try filter("magnificationFilter") { cell.magnificationFilter = c }
            for (key, kp) in EmitterCell.numberFields {
                if let v = f[key] { cell[keyPath: kp] = try number(v, f.at(key)) }
            }
            if let v = f["emitterCells"] { cell.emitterCells = try cellList(v, f.at("emitterCells"), depth: depth + 1, checked: checked)
            }
            if checked, let problem = cell.problem(at: at) { throw SceneError(path: at, problem) }
            out.append(cell)
        }
        return out
    }

    /// `cells` as a list of CELL objects, each with only the fields that differ from
    /// CAEmitterCell's defaults (what `emitterCells(_:_:)` reads back as the same cells).
    public static func json(_ cells: [EmitterCell]) -> JSON {
        let defaults = EmitterCell()
        func nums(_ v: [Double]) -> JSON { .array(v.map { .number($0) }) }
        return .array(cells.map { c in
            var m: [JSON.Member] = []
            if !c.name.isEmpty { m.append(JSON.Member(key: "name", value: .string(c.name))) }
            if !c.enabled { m.append(JSON.Member(key: "enabled", value: .bool(false))) }
            if let s = c.contents { m.append(JSON.Member(key: "contents", value: .string(s))) }
            if c.contentsRect != defaults.contentsRect {
                let r = c.contentsRect
                m.append(JSON.Member(key: "contentsRect", value: nums([r.origin.x, r.origin.y, r.size.width, r.size.height])))
            }
            if c.color != defaults.color {
                m.append(JSON.Member(key: "color", value: nums([c.color.red, c.color.green, c.color.blue, c.color.alpha])))
            }
            if c.minificationFilter != .linear {
                m.append(JSON.Member(key: "minificationFilter", value: .string(c.minificationFilter.rawValue)))
            }
            if c.magnificationFilter != .linear {
                m.append(JSON.Member(key: "magnificationFilter", value: .string(c.magnificationFilter.rawValue)))
            }
            for (key, kp) in EmitterCell.numberFields where c[keyPath: kp] != defaults[keyPath: kp] {
                m.append(JSON.Member(key: key, value: .number(c[keyPath: kp])))
            }
            if !c.emitterCells.isEmpty { m.append(JSON.Member(key: "emitterCells", value: json(c.emitterCells))) }
            return .object(m)
        })
    }
}
