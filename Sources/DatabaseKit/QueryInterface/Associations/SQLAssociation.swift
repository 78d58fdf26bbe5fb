/// The key of an association: the name its rows decode under. An inflected
/// key takes the singular or plural form the use asks for.
enum AssociationKey: Sendable, Equatable {
    /// From a table name: "author" or "authors", as the join needs.
    case inflected(String)
    /// Given to a to-one association: its plural is inflected.
    case fixedSingular(String)
    /// Given to a to-many association: its singular is inflected.
    case fixedPlural(String)
    /// The key of a request's child: used as is.
    case fixed(String)

    func name(singular: Bool) -> String {
        switch self {
        case .inflected(let name): return singular ? name.singularized : name.pluralized
        case .fixedSingular(let name): return singular ? name : name.pluralized
        case .fixedPlural(let name): return singular ? name.singularized : name
        case .fixed(let name): return name
        }
    }

    /// The key with a prefix, for the pivots of an indirect association.
    func prefixed(_ prefix: String) -> AssociationKey {
        switch self {
        case .inflected(let name): return .inflected(prefix + name)
        case .fixedSingular(let name): return .fixedSingular(prefix + name)
        case .fixedPlural(let name): return .fixedPlural(prefix + name)
        case .fixed(let name): return .fixed(prefix + name)
        }
    }
}

/// One table of an association: how it joins the previous one, and the
/// request on its rows.
struct AssociationStep: Sendable {
    var key: AssociationKey
    var condition: AssociationCondition
    var relation: SQLRelation
    var isToOne: Bool

    var keyName: String { key.name(singular: isToOne) }
}

/// The tables an association goes through, from the first one joined to
/// the origin (the pivot) to the destination. A direct association has one.
public struct _SQLAssociation: Sendable {
    var steps: [AssociationStep]

    var destination: AssociationStep {
        get { steps[steps.count - 1] }
        set { steps[steps.count - 1] = newValue }
    }

    var pivot: AssociationStep {
        get { steps[0] }
        set { steps[0] = newValue }
    }

    init(steps: [AssociationStep]) {
        self.steps = steps
    }

    /// This association, reached through `other`.
    func through(_ other: _SQLAssociation) -> _SQLAssociation {
        _SQLAssociation(steps: other.steps + steps)
    }

    /// The destination's relation, joined back to the pivot: the request
    /// of an indirect association's rows (the pivot filtered by the caller).
    func destinationRelation() -> SQLRelation {
        if steps.count == 1 { return destination.relation }
        // Walk back from the destination to the pivot, each table joined
        // to the next one, selecting nothing.
        var reversed: [AssociationStep] = []
        for index in stride(from: steps.count - 2, through: 0, by: -1) {
            let step = steps[index]
            let next = steps[index + 1]
            var relation = step.relation.selectingNothing()
            relation.children = relation.children.filter { !$0.kind.isPrefetched }
            reversed.append(
                AssociationStep(
                    key: step.key.prefixed("grdb_"), condition: next.condition.reversed(to: step.relation.source), relation: relation,
                    isToOne: true))
        }
        return destination.relation.appendingChild(for: _SQLAssociation(steps: reversed), kind: .oneRequired)
    }
}

/// An associated table of a request: joined in the same query (to-one), or
/// fetched by a second query (`including(all:)`).
struct SQLRelationChild: Sendable {
    enum Kind: Sendable {
        case oneOptional, oneRequired, all
        /// The pivot of an indirect `including(all:)`: prefetched, not selected.
        case bridge

        var isPrefetched: Bool { self == .all || self == .bridge }
    }

    var key: String
    var kind: Kind
    var condition: AssociationCondition
    var relation: SQLRelation

    /// The association this child is, under its key (for prefetches).
    func association() -> _SQLAssociation {
        _SQLAssociation(steps: [AssociationStep(key: .fixed(key), condition: condition, relation: relation, isToOne: !kind.isPrefetched)])
    }

    /// Two uses of the same key merge into one join: the required kind
    /// wins, the later use refines the earlier (see `SQLRelation.merged(with:)`).
    func merged(with other: SQLRelationChild) -> SQLRelationChild? {
        guard condition == other.condition, kind.isPrefetched == other.kind.isPrefetched else { return nil }
        var merged = self
        if other.kind == .oneRequired { merged.kind = .oneRequired }
        guard let relation = relation.merged(with: other.relation) else { return nil }
        merged.relation = relation
        return merged
    }
}

extension SQLRelation {
    /// The relation with one more associated table, under the association's
    /// key (singular for a join, plural for a prefetch). An indirect
    /// association nests its destination inside its pivots.
    func appendingChild(for association: _SQLAssociation, kind: SQLRelationChild.Kind) -> SQLRelation {
        let isSingular: Bool
        switch kind {
        case .oneOptional, .oneRequired: isSingular = true
        case .all: isSingular = false
        case .bridge: isSingular = association.destination.isToOne
        }
        let destination = association.destination
        let child = SQLRelationChild(
            key: destination.key.name(singular: isSingular), kind: kind, condition: destination.condition, relation: destination.relation)
        if association.steps.count == 1 { return appendingChild(child) }
        var reduced = _SQLAssociation(steps: Array(association.steps.dropLast()))
        reduced.destination.relation = reduced.destination.relation.selectingNothing().appendingChild(child)
        // The pivots of an indirect including(all:) are fetched with the
        // destination, not decoded: a bridge.
        return appendingChild(for: reduced, kind: kind == .all ? .bridge : kind)
    }

    private func appendingChild(_ child: SQLRelationChild) -> SQLRelation {
        var relation = self
        if let index = relation.children.firstIndex(where: { $0.key == child.key }) {
            if let merged = relation.children[index].merged(with: child) {
                relation.children[index] = merged
                return relation
            }
            // Two different associations under one key: a request can not
            // decode them both. Keep the first and report at fetch time.
            relation.misuses.append("the association key \"\(child.key)\" is ambiguous: use forKey(_:) to tell the associations apart")
            return relation
        }
        relation.children.append(child)
        return relation
    }

    /// The relation and another on the same table, as one.
    func merged(with other: SQLRelation) -> SQLRelation? {
        guard source.lowercased() == other.source.lowercased() else { return nil }
        var merged = self
        if let otherAlias = other.alias {
            if let alias {
                guard (try? otherAlias.becomeProxy(of: alias)) != nil else { return nil }
            } else {
                merged.alias = otherAlias
            }
        }
        // The later use refines the earlier, as in GRDB: its selection
        // replaces the earlier one unless it selects nothing (`joining`), its
        // ordering, grouping and limit replace the earlier ones it has;
        // filters and havings add up.
        if !other.selectsNothing {
            merged.selection = other.selection
            merged.annotations = other.annotations
        }
        merged.filters += other.filters
        if !other.ordering.terms.isEmpty { merged.ordering = other.ordering }
        merged.grouping = other.grouping ?? grouping
        merged.havings += other.havings
        merged.limit = other.limit ?? limit
        merged.isDistinct = isDistinct || other.isDistinct
        for child in other.children { merged = merged.appendingChild(child) }
        merged.misuses += other.misuses
        return merged
    }

    /// The prefetched associations of the relation, including those of its
    /// joined tables (reached through them).
    var prefetchedAssociations: [_SQLAssociation] {
        children.flatMap { child -> [_SQLAssociation] in
            switch child.kind {
            case .all:
                return [child.association()]
            case .oneOptional, .oneRequired, .bridge:
                return child.relation.prefetchedAssociations.map { association in
                    var through = child
                    through.relation = child.relation.selectingNothing()
                    through.relation.children.removeAll { $0.key == association.pivot.keyName }
                    return association.through(through.association())
                }
            }
        }
    }

    /// The relation without its prefetches (a count, the base of a prefetch).
    func removingPrefetchedAssociations() -> SQLRelation {
        var relation = self
        relation.children = children.compactMap { child in
            if child.kind.isPrefetched { return nil }
            var child = child
            child.relation = child.relation.removingPrefetchedAssociations()
            return child
        }
        return relation
    }
}
