#if canImport(XCTest)
import RxCore
import XCTest

/// Asserts that two lists of recorded events are equal (same ticks, same events; errors compared as
/// `Event: Equatable` documents), and on failure lists both with the first difference marked.
public func XCTAssertEqual<Element: Equatable>(
    _ lhs: [Recorded<Event<Element>>],
    _ rhs: [Recorded<Event<Element>>],
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath,
    line: UInt = #line
) {
    guard lhs != rhs else { return }
    XCTFail(describeDifference(lhs, rhs, what: "recorded events", message: message()), file: file, line: line)
}

/// Asserts that two lists of events are equal, and on failure lists both with the first
/// difference marked.
public func XCTAssertEqual<Element: Equatable>(
    _ lhs: [Event<Element>],
    _ rhs: [Event<Element>],
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath,
    line: UInt = #line
) {
    guard lhs != rhs else { return }
    XCTFail(describeDifference(lhs, rhs, what: "events", message: message()), file: file, line: line)
}

/// Asserts that two subscription logs are equal, and on failure lists both with the first
/// difference marked.
public func XCTAssertEqual(
    _ lhs: [Subscription],
    _ rhs: [Subscription],
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath,
    line: UInt = #line
) {
    guard lhs != rhs else { return }
    XCTFail(describeDifference(lhs, rhs, what: "subscriptions", message: message()), file: file, line: line)
}

/// A readable two-column report: every line of both lists, `>` marking lines that differ.
func describeDifference<Value: Equatable>(
    _ lhs: [Value], _ rhs: [Value], what: String, message: String
) -> String {
    let count = max(lhs.count, rhs.count)
    let differs: [Bool] = (0..<count).map { index in
        index >= lhs.count || index >= rhs.count || lhs[index] != rhs[index]
    }
    let firstDifference = differs.firstIndex(of: true) ?? count
    var lines = ["\(what) differ at index \(firstDifference)" + (message.isEmpty ? "" : " - \(message)")]
    let left = lhs.map { String(reflecting: $0) }
    let right = rhs.map { String(reflecting: $0) }
    let width = max(3, left.map(\.count).max() ?? 0)
    lines.append("    " + pad("lhs", to: width) + " | rhs")
    for index in 0..<count {
        let marker = differs[index] ? "  > " : "    "
        let leftText = index < left.count ? left[index] : "-"
        let rightText = index < right.count ? right[index] : "-"
        lines.append(marker + pad(leftText, to: width) + " | " + rightText)
    }
    return lines.joined(separator: "\n")
}

private func pad(_ text: String, to width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}
#endif
