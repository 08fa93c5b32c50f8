/// A property of a layer that an expression animation drives or reads.
public struct ExpressionKey: Hashable, Sendable, CustomStringConvertible {
    public var layer: String
    public var keyPath: String

    public init(layer: String, keyPath: String) { self.layer = layer; self.keyPath = keyPath }

    public var description: String { "\(layer).\(keyPath)" }

    /// Whether the two name the same value or one contains the other (`position` and
    /// `position.x`), comparing whole key path components.
    public func overlaps(_ other: ExpressionKey) -> Bool {
        guard layer == other.layer else { return false }
        let a = keyPath, b = other.keyPath
        if a == b { return true }
        if a.count < b.count { return b.hasPrefix(a) && b.dropFirst(a.count).first == "." }
        return a.hasPrefix(b) && a.dropFirst(b.count).first == "."
    }
}

/// Expression animations read values other expressions may write: they are evaluated in
/// dependency order, and a cycle is rejected at commit.
public struct DependencyCycle: Error, Hashable, Sendable, CustomStringConvertible {
    /// The keys around the cycle, each depending on the next and the last on the first.
    public var keys: [ExpressionKey]

    public init(keys: [ExpressionKey]) { self.keys = keys }

    /// "expression dependency cycle: a.opacity → b.position.x → a.opacity".
    public var description: String {
        "expression dependency cycle: " + (keys + keys.prefix(1)).map(\.description).joined(separator: " → ")
    }
}

public enum ExpressionOrder {
    /// An order in which to evaluate expressions so that each runs after every expression
    /// whose key it reads.
    ///
    /// - Parameters:
    ///   - keys: the key each expression drives, one per expression.
    ///   - references: what each expression reads (`self` already replaced by its layer:
    ///     `AnimationExpression.dependencies(owner:)`). A reference depends on every
    ///     expression whose key overlaps it (`ExpressionKey.overlaps`); one that no expression
    ///     drives is a plain presentation value.
    /// - Returns: indices into `keys`, dependencies first; among independent expressions the
    ///   given order is kept as far as the dependencies allow (a depth-first post-order).
    /// - Throws: `DependencyCycle` naming the keys of the first cycle found (an expression
    ///   reading its own key is a cycle of one).
    ///
    /// Iterative (no recursion), O(expressions + references × expressions on the same layer).
    public static func evaluationOrder(keys: [ExpressionKey], references: [[ExpressionKey]]) throws(DependencyCycle) -> [Int] {
        precondition(keys.count == references.count, "evaluationOrder: one reference list per key")
        var byLayer: [String: [Int]] = [:]
        for (i, k) in keys.enumerated() { byLayer[k.layer, default: []].append(i) }
        let edges: [[Int]] = references.map { refs in
            var out: [Int] = []
            for r in refs {
                for j in byLayer[r.layer] ?? [] where keys[j].overlaps(r) && !out.contains(j) { out.append(j) }
            }
            return out
        }

        enum Mark { case unvisited, inProgress, done }
        var mark = Array(repeating: Mark.unvisited, count: keys.count)
        var order: [Int] = []
        order.reserveCapacity(keys.count)
        var path: [(node: Int, next: Int)] = []
        for root in keys.indices where mark[root] == .unvisited {
            path.append((root, 0))
            mark[root] = .inProgress
            while let top = path.last {
                if top.next < edges[top.node].count {
                    path[path.count - 1].next += 1
                    let j = edges[top.node][top.next]
                    switch mark[j] {
                    case .done: continue
                    case .inProgress:
                        let from = path.firstIndex { $0.node == j }!
                        throw DependencyCycle(keys: path[from...].map { keys[$0.node] })
                    case .unvisited:
                        mark[j] = .inProgress
                        path.append((j, 0))
                    }
                } else {
                    mark[top.node] = .done
                    order.append(top.node)
                    path.removeLast()
                }
            }
        }
        return order
    }
}
