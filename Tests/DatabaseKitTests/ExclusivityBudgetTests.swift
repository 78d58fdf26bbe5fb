import Foundation
import Testing

/// `@exclusivity(unchecked)` removes a safety check: each one must pay for
/// itself, measured (Benchmarks/RESULTS.md, "Exclusivity checks"). A new
/// one fails this test until it is measured and the budget raised.
@Suite("Exclusivity budget")
struct ExclusivityBudgetTests {
    /// How many DatabaseKit may hold, as measured.
    static let budget = 41

    @Test("DatabaseKit's @exclusivity(unchecked) properties stay within the measured budget, each file citing its measurement")
    func budgetHolds() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/DatabaseKit")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        var count = 0
        for file in files {
            let text = try String(contentsOfFile: sources.appendingPathComponent(file).path, encoding: .utf8)
            // The attribute on a declaration, not a mention of it in a comment.
            let uses = text.split(separator: "\n").filter {
                $0.trimmingCharacters(in: .whitespaces).hasPrefix("@exclusivity(unchecked) ")
            }.count
            count += uses
            if uses > 0 {
                #expect(
                    text.contains("// @exclusivity(unchecked), measured (Benchmarks/RESULTS.md"),
                    "\(file) has \(uses) @exclusivity(unchecked) without its measurement")
            }
        }
        #expect(count <= Self.budget, "\(count) @exclusivity(unchecked) in DatabaseKit, budget \(Self.budget)")
    }
}
