import ArgumentParser
import DBToolCore

extension KeepWithin: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

/// The retention rules of `backup` and `backup prune`, as restic's
/// `forget` takes them.
struct RetentionOptions: ParsableArguments {
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Keep the newest N archives of each database.", valueName: "n"))
    var keep: Int?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Keep the newest archive of each of the last N hours.", valueName: "n"))
    var keepHourly: Int?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Keep the newest archive of each of the last N days.", valueName: "n"))
    var keepDaily: Int?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Keep the newest archive of each of the last N ISO weeks.", valueName: "n"))
    var keepWeekly: Int?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Keep the newest archive of each of the last N months.", valueName: "n"))
    var keepMonthly: Int?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Keep the newest archive of each of the last N years.", valueName: "n"))
    var keepYearly: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Keep every archive taken within this long of the newest one: 30d, 12h, 1y6m (years, months, days, hours).",
            valueName: "duration"))
    var keepWithin: KeepWithin?

    func validate() throws {
        for (name, value) in [
            ("--keep", keep), ("--keep-hourly", keepHourly), ("--keep-daily", keepDaily), ("--keep-weekly", keepWeekly),
            ("--keep-monthly", keepMonthly), ("--keep-yearly", keepYearly),
        ] {
            if let value, value < 1 { throw ValidationError("\(name) must be 1 or more (got \(value))") }
        }
    }

    /// The rules.
    var policy: RetentionPolicy {
        RetentionPolicy(
            last: keep, hourly: keepHourly, daily: keepDaily, weekly: keepWeekly, monthly: keepMonthly, yearly: keepYearly,
            within: keepWithin)
    }
}
