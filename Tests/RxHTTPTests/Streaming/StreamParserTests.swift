import Foundation
@testable import RxHTTP
import XCTest

/// The WHATWG event stream rules and JSON Lines, fed whole and byte by byte.
final class StreamParserTests: XCTestCase {
    private func events(_ text: String, splitEveryByte: Bool = false, lastEventID: String? = nil) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser(maxLineBytes: 1 << 20, maxEventBytes: 1 << 20, lastEventID: lastEventID)
        let bytes = Data(text.utf8)
        guard splitEveryByte else { return try parser.feed(bytes) }
        var all: [ServerSentEvent] = []
        for byte in bytes { all += try parser.feed(Data([byte])) }
        return all
    }

    private func bothWays(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> [ServerSentEvent] {
        let whole = try events(text)
        XCTAssertEqual(try events(text, splitEveryByte: true), whole, "chunking changed the result", file: file, line: line)
        return whole
    }

    func testDataLinesJoinWithLineFeeds() throws {
        XCTAssertEqual(try bothWays("data: one\ndata: two\n\n"), [ServerSentEvent(data: "one\ntwo")])
        XCTAssertEqual(try bothWays("data\n\n"), [ServerSentEvent(data: "")], "a field without a colon has an empty value")
        XCTAssertEqual(try bothWays("data:no space\ndata:  two spaces\n\n"), [ServerSentEvent(data: "no space\n two spaces")])
    }

    func testEventTypeIdAndRetry() throws {
        let parsed = try bothWays("retry: 2500\nevent: tick\nid: 42\ndata: x\n\ndata: y\n\n")
        XCTAssertEqual(parsed, [
            ServerSentEvent(id: "42", event: "tick", data: "x", retry: 2500),
            ServerSentEvent(id: "42", event: "message", data: "y", retry: 2500),
        ])
        XCTAssertEqual(try bothWays("retry: 12a\ndata: z\n\n").first?.retry, nil, "retry takes digits only")
        XCTAssertEqual(try bothWays("id: a\u{0}b\ndata: z\n\n").first?.id, nil, "an id with NUL is ignored")
        XCTAssertEqual(try bothWays("id\ndata: z\n\n").first?.id, "", "an empty id resets it")
        XCTAssertEqual(try events("data: z\n\n", lastEventID: "7").first?.id, "7")
    }

    func testCommentsAndUnknownFieldsAreIgnored() throws {
        XCTAssertEqual(try bothWays(": keep-alive\nfoo: bar\ndata: x\n\n:\n\n"), [ServerSentEvent(data: "x")])
    }

    func testEveryLineEnding() throws {
        for ending in ["\n", "\r", "\r\n"] {
            let text = ["event: e", "data: a", "data: b", "", ""].joined(separator: ending)
            XCTAssertEqual(try bothWays(text), [ServerSentEvent(event: "e", data: "a\nb")], ending.debugDescription)
        }
        XCTAssertEqual(try bothWays("data: a\r\n\r\ndata: b\n\r\n"), [ServerSentEvent(data: "a"), ServerSentEvent(data: "b")])
    }

    func testALeadingByteOrderMarkIsSkipped() throws {
        XCTAssertEqual(try bothWays("\u{FEFF}data: x\n\n"), [ServerSentEvent(data: "x")])
        XCTAssertEqual(try bothWays("data: \u{FEFF}x\n\n"), [ServerSentEvent(data: "\u{FEFF}x")], "only a leading BOM")
    }

    func testABlankLineWithoutDataDispatchesNothingAndResetsTheType() throws {
        XCTAssertEqual(try bothWays("event: lost\n\ndata: x\n\n"), [ServerSentEvent(data: "x")])
        XCTAssertEqual(try bothWays("data: unfinished"), [], "an event never dispatched is dropped")
    }

    func testBoundsAreTypedErrors() {
        var lines = ServerSentEventParser(maxLineBytes: 8, maxEventBytes: 100)
        XCTAssertThrowsError(try lines.feed(Data("data: 123456789\n".utf8)))
        var event = ServerSentEventParser(maxLineBytes: 100, maxEventBytes: 8)
        XCTAssertThrowsError(try event.feed(Data("data: 1234\ndata: 5678\n".utf8)))
    }

    // MARK: JSON Lines

    private struct Row: Decodable, Equatable { let n: Int }

    func testJSONLinesSkipBlankLinesAndAcceptCRLF() throws {
        var parser = JSONLinesParser<Row>(maxLineBytes: 1_000, decoder: JSONDecoder(), skipsInvalidLines: false)
        var rows = try parser.feed(Data("{\"n\":1}\r\n\n  \n{\"n\":2}\n{\"n\"".utf8))
        rows += try parser.feed(Data(":3}".utf8))
        XCTAssertEqual(rows, [Row(n: 1), Row(n: 2)])
        XCTAssertEqual(try parser.finish(), Row(n: 3), "a last line without a line end")
    }

    func testABadLineNamesItsNumberOrIsSkipped() throws {
        var strict = JSONLinesParser<Row>(maxLineBytes: 1_000, decoder: JSONDecoder(), skipsInvalidLines: false)
        XCTAssertThrowsError(try strict.feed(Data("{\"n\":1}\n{\"n\":\"x\"}\n".utf8))) { error in
            XCTAssertEqual((error as? HTTPClientError)?.code, .decodeError)
            XCTAssertTrue((error as? HTTPClientError)?.message?.contains("line 2") ?? false, "\(error)")
        }
        var lenient = JSONLinesParser<Row>(maxLineBytes: 1_000, decoder: JSONDecoder(), skipsInvalidLines: true)
        XCTAssertEqual(try lenient.feed(Data("{\"n\":1}\nnot json\n{\"n\":3}\n".utf8)), [Row(n: 1), Row(n: 3)])
        var bounded = JSONLinesParser<Row>(maxLineBytes: 4, decoder: JSONDecoder(), skipsInvalidLines: true)
        XCTAssertThrowsError(try bounded.feed(Data("{\"n\":1}\n".utf8)), "a long line fails even when skipping")
    }
}
