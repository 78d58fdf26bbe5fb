import Testing

@testable import DBToolCore

/// Litestream's configuration files as libyaml composes them.
@Suite("YAML documents")
struct YAMLParserTests {
    @Test("block and flow collections, quoted and plain scalars, lines from 1, anchors and aliases")
    func compose() throws {
        let text = """
            # replication
            defaults: &defaults
              retention: 24h
            dbs:
              - path: "/var/lib/app/db.sqlite"
                replica: *defaults
              - {path: '/b', tags: [a, "b c"]}
            empty:
            quoted: "null"
            """
        let root = try #require(try YAMLParser.compose(text))
        guard case .mapping(let pairs) = root.content else {
            Issue.record("the root is not a mapping")
            return
        }
        #expect(pairs.map { $0.key.string } == ["defaults", "dbs", "empty", "quoted"])
        #expect(pairs.map(\.key.line) == [2, 4, 8, 9])
        guard case .sequence(let dbs) = pairs[1].value.content, dbs.count == 2,
            case .mapping(let first) = dbs[0].content, case .mapping(let second) = dbs[1].content
        else {
            Issue.record("dbs is not a list of two mappings")
            return
        }
        #expect(first[0].value.string == "/var/lib/app/db.sqlite")
        guard case .mapping(let replica) = first[1].value.content else {
            Issue.record("the alias did not bring its mapping")
            return
        }
        #expect(replica.map { $0.key.string } == ["retention"] && replica[0].value.string == "24h")
        #expect(first[1].value.line == 6, "an alias has the line where it is used")
        guard case .sequence(let tags) = second[1].value.content else {
            Issue.record("a flow sequence is not a sequence")
            return
        }
        #expect(tags.map(\.string) == ["a", "b c"])
        #expect(pairs[2].value.isNull && !pairs[3].value.isNull, "a plain empty value is null, a quoted \"null\" is a string")
    }

    @Test("empty text is no document; only the first document is read")
    func documents() throws {
        #expect(try YAMLParser.compose("") == nil)
        #expect(try YAMLParser.compose("# only a comment\n") == nil)
        #expect(try YAMLParser.compose("a: 1\n---\nb: 2\n")?.content.mappingKeys == ["a"])
    }

    @Test("malformed YAML names the line and column; an undefined alias and an alias bomb are refused")
    func refusals() {
        #expect(throws: YAMLParser.Problem.self) { try YAMLParser.compose("dbs:\n  - path: /a\n   replica:\n") }
        do {
            _ = try YAMLParser.compose("a: [1, 2\nb: 3\n")
            Issue.record("an unclosed flow sequence was read")
        } catch {
            #expect("\(error)".hasPrefix("line "), "\(error)")
            #expect("\(error)".contains("column"), "\(error)")
        }
        #expect(throws: YAMLParser.Problem.self) { try YAMLParser.compose("a: *nowhere\n") }
        var bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...8 {
            bomb += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        do {
            _ = try YAMLParser.compose(bomb)
            Issue.record("a document of 10^9 values was composed")
        } catch {
            #expect("\(error)".contains("more than \(YAMLParser.nodeLimit) values"), "\(error)")
        }
    }
}

extension YAMLNode.Content {
    fileprivate var mappingKeys: [String?]? {
        if case .mapping(let pairs) = self { return pairs.map(\.key.string) }
        return nil
    }
}
