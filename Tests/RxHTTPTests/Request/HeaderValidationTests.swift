import Foundation
@_spi(TransportSupport) @testable import RxHTTP
import XCTest

final class HeaderValidationTests: XCTestCase {
    func testCRLFIsOneCharacterButTwoScalars() {
        // The trap the validation avoids: a Character-based check misses "\r\n".
        XCTAssertFalse("a\r\nb".contains("\r" as Character))
        XCTAssertFalse(HeaderValidation.isValidValue("a\r\nb"))
    }

    func testRejectsControlCharactersInValues() {
        for value in ["a\rb", "a\nb", "a\r\nX-Injected: 1", "a\u{0}b", "a\u{7F}b", "a\u{1B}b"] {
            XCTAssertFalse(HeaderValidation.isValidValue(value), value.debugDescription)
        }
    }

    func testAcceptsOrdinaryValues() {
        for value in ["", "text/html; charset=utf-8", "a\tb", "Bearer abc.def-ghi", "naïve ✓"] {
            XCTAssertTrue(HeaderValidation.isValidValue(value), value.debugDescription)
        }
    }

    func testNamesMustBeTokens() {
        for name in ["X-Request-ID", "accept", "x_y", "A!#$%&'*+.^`|~"] {
            XCTAssertTrue(HeaderValidation.isValidToken(name), name)
        }
        for name in ["", "X Y", "X:Y", "X\r\n", "Ü", "X\"", "(x)"] {
            XCTAssertFalse(HeaderValidation.isValidToken(name), name.debugDescription)
        }
    }

    func testValidateNamesTheHeaderButNotTheValue() {
        XCTAssertThrowsError(try HeaderValidation.validate(["X-Secret": "s3cret\r\n"], url: nil)) { error in
            let error = error as? HTTPClientError
            XCTAssertEqual(error?.code, .invalidRequest)
            XCTAssertTrue(error?.description.contains("X-Secret") ?? false)
            XCTAssertFalse(error?.description.contains("s3cret") ?? true)
        }
    }

    func testHeaderFieldsAreCaseInsensitive() {
        var headers = ["content-type": "a"]
        HeaderFields.set("b", for: "Content-Type", in: &headers)
        XCTAssertEqual(headers, ["Content-Type": "b"])
        XCTAssertEqual(HeaderFields.value("CONTENT-TYPE", in: headers), "b")
        XCTAssertEqual(HeaderFields.merging(["Accept": "x", "A": "1"], ["accept": "y"]), ["accept": "y", "A": "1"])
    }

    func testSeveralFieldsAreFoundInOnePassAsEachLookupFindsThem() {
        let headers: HTTPHeaders = [
            "content-length": "12", "Content-Type": "a", "CONTENT-TYPE": "b", "X-\u{130}d": "c", "Transfer-Encoding": "chunked",
        ]
        let names = ["Content-Length", "Content-Type", "x-id", "Transfer-Encoding", "Content-Encoding"]
        func values(_ fieldNames: HeaderFieldNames, _ headers: HTTPHeaders, count: Int, combining: Bool = false) -> [String?] {
            var found = [String?](repeating: nil, count: count)
            fieldNames.forEachValue(in: headers, combining: combining) { index, value in found[index] = value }
            return found
        }
        let fieldNames = HeaderFieldNames("Content-Length", "Content-Type", "x-id", "Transfer-Encoding", "Content-Encoding")
        let found = values(fieldNames, headers, count: 5)
        XCTAssertEqual(found, names.map { headers[$0] }, "as the subscript finds them (Content-Type: its first line)")
        XCTAssertEqual(found, ["12", "a", nil, "chunked", nil], "no Unicode folding")
        XCTAssertEqual(values(fieldNames, headers, count: 5, combining: true), ["12", "a, b", nil, "chunked", nil], "every line, for framing")
        XCTAssertEqual(values(HeaderFieldNames("A"), [:], count: 1), [nil])
        let nine = values(HeaderFieldNames("A", "B", "C", "D", "E", "F", "G", "H", "I"), ["I": "1", "H": "2"], count: 9)
        XCTAssertEqual(nine[7], "2")
        XCTAssertNil(nine[8], "eight names at most")
        // Names of 64 bytes and more are past the length mask, and still found.
        let long = String(repeating: "x", count: 70)
        XCTAssertEqual(values(HeaderFieldNames("Short", long), [long.uppercased(): "1", "short": "2", "Shirt": "3"], count: 2), ["2", "1"])
    }

    func testHeaderLookupFoldsASCIICaseOnly() {
        let headers = ["Content-Type": "a", "X-\u{130}d": "b"]
        XCTAssertEqual(HeaderFields.value("content-type", in: headers), "a")
        XCTAssertEqual(HeaderFields.value("CONTENT-TYPE", in: headers), "a")
        XCTAssertNil(HeaderFields.value("content-typ", in: headers))
        XCTAssertNil(HeaderFields.value("x-id", in: headers), "no Unicode folding: İ is not I")
        XCTAssertTrue(HeaderFields.equalsIgnoringASCIICase("Retry-After", "retry-after"))
        XCTAssertFalse(HeaderFields.equalsIgnoringASCIICase("a[", "A{"), "only letters fold")
    }
}
