// Swift operators that build SQL, as GRDB spells them: `Column("score") > 10`
// is the expression `"score" > ?`, not a Bool. Each operator has three
// forms (expression op value, value op expression, expression op
// expression), so that a literal on either side is a bound value.

// MARK: - Equality and identity (=, <>, IS, IS NOT)

extension SQLSpecificExpressible {
    /// `lhs = rhs`, or `lhs IS NULL` when rhs is nil.
    public static func == (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression {
        .equal(lhs.sqlExpression, rhs?.sqlExpression ?? .null)
    }

    /// `lhs` for true, `NOT lhs` for false.
    public static func == (lhs: Self, rhs: Bool) -> SQLExpression {
        lhs.sqlExpression.test(rhs ? .isTrue : .isFalse)
    }

    /// `lhs = rhs`, or `rhs IS NULL` when lhs is nil.
    public static func == (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression {
        .equal(lhs?.sqlExpression ?? .null, rhs.sqlExpression)
    }

    /// `rhs` for true, `NOT rhs` for false.
    public static func == (lhs: Bool, rhs: Self) -> SQLExpression {
        rhs.sqlExpression.test(lhs ? .isTrue : .isFalse)
    }

    /// `lhs = rhs`.
    public static func == (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .equal(lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs <> rhs`, or `lhs IS NOT NULL` when rhs is nil.
    public static func != (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression {
        (lhs == rhs).test(.falsey)
    }

    /// `NOT lhs` for true, `lhs` for false.
    public static func != (lhs: Self, rhs: Bool) -> SQLExpression {
        (lhs == rhs).test(.falsey)
    }

    /// `lhs <> rhs`, or `rhs IS NOT NULL` when lhs is nil.
    public static func != (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression {
        (lhs == rhs).test(.falsey)
    }

    /// `NOT rhs` for true, `rhs` for false.
    public static func != (lhs: Bool, rhs: Self) -> SQLExpression {
        (lhs == rhs).test(.falsey)
    }

    /// `lhs <> rhs`.
    public static func != (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        (lhs == rhs).test(.falsey)
    }

    /// `lhs IS rhs`.
    public static func === (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression {
        .compare(.is, lhs.sqlExpression, rhs?.sqlExpression ?? .null)
    }

    /// `lhs IS rhs`, or `rhs IS NULL` when lhs is nil.
    public static func === (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression {
        guard let lhs else { return .compare(.is, rhs.sqlExpression, .null) }
        return .compare(.is, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs IS rhs`.
    public static func === (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .compare(.is, lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs IS NOT rhs`.
    public static func !== (lhs: Self, rhs: (any SQLExpressible)?) -> SQLExpression {
        (lhs === rhs).test(.falsey)
    }

    /// `lhs IS NOT rhs`.
    public static func !== (lhs: (any SQLExpressible)?, rhs: Self) -> SQLExpression {
        (lhs === rhs).test(.falsey)
    }

    /// `lhs IS NOT rhs`.
    public static func !== (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        (lhs === rhs).test(.falsey)
    }
}

// MARK: - Comparison (<, <=, >, >=)

extension SQLSpecificExpressible {
    /// `lhs < rhs`.
    public static func < (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary("<", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs < rhs`.
    public static func < (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary("<", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs < rhs`.
    public static func < (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary("<", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs <= rhs`.
    public static func <= (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary("<=", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs <= rhs`.
    public static func <= (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary("<=", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs <= rhs`.
    public static func <= (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary("<=", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs > rhs`.
    public static func > (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary(">", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs > rhs`.
    public static func > (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary(">", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs > rhs`.
    public static func > (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary(">", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs >= rhs`.
    public static func >= (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary(">=", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs >= rhs`.
    public static func >= (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary(">=", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs >= rhs`.
    public static func >= (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary(">=", lhs.sqlExpression, rhs.sqlExpression)
    }
}

// MARK: - Inclusion (BETWEEN, IN)

extension Range where Bound: SQLExpressible {
    /// `element >= lower AND element < upper`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        (element >= lowerBound) && (element < upperBound)
    }
}

extension ClosedRange where Bound: SQLExpressible {
    /// `element BETWEEN lower AND upper`.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        .between(element.sqlExpression, lowerBound.sqlExpression, upperBound.sqlExpression)
    }
}

extension Sequence where Element: SQLExpressible {
    /// `element IN (a, b, c)`; `element = a` for one value, false for none.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        SQLCollection.array(map(\.sqlExpression)).contains(element.sqlExpression)
    }
}

extension Sequence where Element == any SQLExpressible {
    /// `element IN (a, b, c)`; `element = a` for one value, false for none.
    public func contains(_ element: some SQLSpecificExpressible) -> SQLExpression {
        SQLCollection.array(map(\.sqlExpression)).contains(element.sqlExpression)
    }
}

// MARK: - Arithmetic (+, -, *, /)

extension SQLSpecificExpressible {
    /// `lhs * rhs`.
    public static func * (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.multiply, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs * rhs`.
    public static func * (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.multiply, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs * rhs`.
    public static func * (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.multiply, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs / rhs`.
    public static func / (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary("/", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs / rhs`.
    public static func / (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary("/", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs / rhs`.
    public static func / (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary("/", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs + rhs`.
    public static func + (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.add, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs + rhs`.
    public static func + (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.add, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs + rhs`.
    public static func + (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.add, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `-value`.
    public static prefix func - (value: Self) -> SQLExpression {
        SQLExpression(.unary("-", value.sqlExpression))
    }

    /// `lhs - rhs`.
    public static func - (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary("-", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs - rhs`.
    public static func - (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary("-", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs - rhs`.
    public static func - (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary("-", lhs.sqlExpression, rhs.sqlExpression)
    }
}

// MARK: - Logic (AND, OR, NOT)

extension SQLSpecificExpressible {
    /// `lhs AND rhs`.
    public static func && (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.and, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs AND rhs`.
    public static func && (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.and, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs AND rhs`.
    public static func && (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.and, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs OR rhs`.
    public static func || (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.or, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs OR rhs`.
    public static func || (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.or, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs OR rhs`.
    public static func || (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.or, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `NOT value`, or the negated operator: `!(a == b)` is `a <> b`,
    /// `!(a == nil)` is `a IS NOT NULL`, `!list.contains(a)` is `a NOT IN (...)`.
    public static prefix func ! (value: Self) -> SQLExpression {
        value.sqlExpression.test(.falsey)
    }
}

// MARK: - Bitwise (&, |, ~, <<, >>)

extension SQLSpecificExpressible {
    /// `lhs & rhs`.
    public static func & (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.bitwiseAnd, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs & rhs`.
    public static func & (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.bitwiseAnd, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs & rhs`.
    public static func & (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.bitwiseAnd, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs | rhs`.
    public static func | (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .associative(.bitwiseOr, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs | rhs`.
    public static func | (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .associative(.bitwiseOr, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs | rhs`.
    public static func | (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .associative(.bitwiseOr, [lhs.sqlExpression, rhs.sqlExpression])
    }

    /// `lhs << rhs`.
    public static func << (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary("<<", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs << rhs`.
    public static func << (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary("<<", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs << rhs`.
    public static func << (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary("<<", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs >> rhs`.
    public static func >> (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        .binary(">>", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs >> rhs`.
    public static func >> (lhs: some SQLExpressible, rhs: Self) -> SQLExpression {
        .binary(">>", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `lhs >> rhs`.
    public static func >> (lhs: Self, rhs: some SQLSpecificExpressible) -> SQLExpression {
        .binary(">>", lhs.sqlExpression, rhs.sqlExpression)
    }

    /// `~value`.
    public static prefix func ~ (value: Self) -> SQLExpression {
        SQLExpression(.unary("~", value.sqlExpression))
    }
}

// MARK: - LIKE

extension SQLSpecificExpressible {
    /// `self LIKE pattern [ESCAPE escape]`.
    ///
    /// ```swift
    /// Player.filter(Column("email").like("%@example.com"))
    /// ```
    public func like(_ pattern: some SQLExpressible, escape: (any SQLExpressible)? = nil) -> SQLExpression {
        SQLExpression(.like(sqlExpression, pattern.sqlExpression, escape: escape?.sqlExpression, negated: false))
    }
}
