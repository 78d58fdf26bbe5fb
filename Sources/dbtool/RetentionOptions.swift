import ArgumentParser
import DBToolCore

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
            "Keep every archive taken within this long of the newest one: 30d, 12h, 1y6mo, 90min (a bare m is months, as restic's).",
            valueName: "duration"),
        transform: { text in
            guard let duration = KeepWithin(text) else {
                throw ValidationError("\(text) is not a duration: write numbers with y, mo (or m), d, h or min, as 30d, 1y6mo, 90min")
            }
            return duration
        })
    var keepWithin: KeepWithin?

    func validate() throws {
        for (name, value) in [
            ("--keep", keep), ("--keep-hourly", keepHourly), ("--keep-daily", keepDaily), ("--keep-weekly", keepWeekly),
            ("--keep-monthly", keepMonthly), ("--keep-yearly", keepYearly),
        ] {
            if let value, value < 1 { throw ValidationError("\(name) must be 1 or more (got \(value))") }
        }
    }

    /// Says how a bare `m` of `--keep-within` was read (months, as restic
    /// reads it), unless `quiet`.
    func noteUnits(quiet: Bool) {
        guard !quiet, let within = keepWithin, within.usesBareM else { return }
        printNotice("--keep-within \(within) is read as \(within.spelledOut) (m is months, as restic's; write min for minutes)")
    }

    /// The rules.
    var policy: RetentionPolicy {
        RetentionPolicy(
            last: keep, hourly: keepHourly, daily: keepDaily, weekly: keepWeekly, monthly: keepMonthly, yearly: keepYearly,
            within: keepWithin)
    }
}
