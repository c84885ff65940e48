import Foundation
@testable import RxHTTP
import XCTest

/// The outbox's file format: what it writes reads back the same; a short, altered, foreign or
/// newer file is a named defect, never a crash and never a record.
final class OutboxRecordTests: XCTestCase {
    private func entry(key: String = "K-1", headers: [[String]]? = nil, method: String = "POST", url: String = "https://api.test/orders") -> StoredEntry {
        StoredEntry(
            id: UUID(), sequence: 7, idempotencyKey: key, enqueuedAt: 1_764_400_000.25, method: method, url: url,
            headers: headers ?? [["Accept", "application/json"], ["Idempotency-Key", key], ["X-Trace", "a"], ["X-Trace", "b"]],
            body: Data("{\"order\":1}".utf8), timeout: 15, path: "/orders", requestName: "CreateOrder",
            authorization: "custom:Token", declaresAuthorization: true, requiresAuthentication: true, bypassesSuspension: false
        )
    }

    /// A frame around `payload` as the format lays it out, with a right checksum.
    private func frame(kind: UInt8 = 1, version: UInt8 = 1, _ payload: Data) -> Data {
        var bytes = Array("RXNKOBX".utf8) + [version, kind]
        let length = UInt32(payload.count)
        bytes += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        bytes += payload
        let checksum = DiskCacheStore.fnv1a(bytes[...], basis: 0xcbf2_9ce4_8422_2325)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(checksum >> UInt64(shift) & 0xFF)) }
        return Data(bytes)
    }

    func testEntriesAndOutcomesReadBackAsWritten() throws {
        let stored = entry()
        XCTAssertEqual(try OutboxRecord.decode(OutboxRecord.entry(stored).encoded()), .entry(stored))
        XCTAssertEqual(stored.headerFields.values(for: "X-Trace"), ["a", "b"], "repeated fields kept in order")
        XCTAssertEqual(stored.authorizationType, .custom("Token"))
        let answer = StoredOutcome(id: stored.id, result: .success(HTTPResponse(statusCode: 201, headers: ["Content-Type": "application/json"], body: Data("{}".utf8))))
        XCTAssertEqual(try OutboxRecord.decode(OutboxRecord.outcome(answer).encoded()), .outcome(answer))
        var error = HTTPClientError(.unacceptableStatusCode, message: "no", statusCode: 422, body: Data("bad".utf8), headers: HTTPHeaders([("A", "1")]))
        error.attempts = 2
        let failure = StoredOutcome(id: stored.id, result: .failure(error))
        let decoded = try OutboxRecord.decode(OutboxRecord.outcome(failure).encoded())
        guard case .outcome(let outcome) = decoded, case .failure(let back) = outcome.result else { return XCTFail("\(decoded)") }
        XCTAssertEqual(back.code, .unacceptableStatusCode)
        XCTAssertEqual(back.statusCode, 422)
        XCTAssertEqual(back.body, Data("bad".utf8))
        XCTAssertEqual(back.attempts, 2)
        XCTAssertEqual(back.phase, .responded)
    }

    func testEveryTruncationAndEveryFlippedBitIsADefect() throws {
        let bytes = try OutboxRecord.entry(entry()).encoded()
        for length in 0..<bytes.count {
            XCTAssertThrowsError(try OutboxRecord.decode(bytes.prefix(length)), "cut at \(length)")
        }
        for index in 0..<bytes.count {
            for bit in [0, 3, 7] {
                var altered = bytes
                altered[index] ^= UInt8(1 << bit)
                XCTAssertThrowsError(try OutboxRecord.decode(altered), "bit \(bit) of byte \(index)")
            }
        }
        XCTAssertThrowsError(try OutboxRecord.decode(bytes + Data([0]))) { XCTAssertEqual($0 as? OutboxRecord.Defect, .badLength) }
        XCTAssertThrowsError(try OutboxRecord.decode(bytes.prefix(30))) { XCTAssertEqual($0 as? OutboxRecord.Defect, .truncated) }
        XCTAssertThrowsError(try OutboxRecord.decode(bytes.prefix(3))) { XCTAssertEqual($0 as? OutboxRecord.Defect, .truncated) }
    }

    func testEachKindOfForeignFileIsNamed() throws {
        let json = try JSONEncoder().encode(entry())
        let cases: [(Data, OutboxRecord.Defect)] = [
            (Data("{\"id\":1}".utf8), .foreign),
            (Data(), .truncated),
            (frame(version: 2, json), .unsupportedVersion(2)),
            (frame(kind: 9, json), .unknownKind(9)),
            (frame(Data("not json".utf8)), .malformed("not an entry")),
            (frame(kind: 2, Data("[]".utf8)), .malformed("not an outcome")),
        ]
        for (bytes, defect) in cases {
            XCTAssertThrowsError(try OutboxRecord.decode(bytes)) { XCTAssertEqual($0 as? OutboxRecord.Defect, defect) }
        }
        var huge = Array(frame(json))
        huge[9] = 0xFF
        XCTAssertThrowsError(try OutboxRecord.decode(Data(huge))) { XCTAssertEqual($0 as? OutboxRecord.Defect, .badLength) }
    }

    func testAWholeFrameWhoseEntryCouldNotBeSentIsMalformed() throws {
        let bad = [
            entry(key: "K-1", headers: [["Idempotency-Key", "other"]]),
            entry(headers: [["Idempotency-Key", "K-1"], ["Bad Name", "x"]]),
            entry(headers: [["Idempotency-Key"]]),
            entry(method: "PO ST"),
            entry(url: "ftp://api.test/orders"),
            entry(url: "/orders"),
            entry(key: ""),
        ]
        for stored in bad {
            let bytes = frame(try JSONEncoder().encode(stored))
            XCTAssertThrowsError(try OutboxRecord.decode(bytes), "\(stored)") { error in
                guard case .malformed? = error as? OutboxRecord.Defect else { return XCTFail("\(error)") }
            }
        }
        var outcome = StoredOutcome(id: UUID(), result: .success(HTTPResponse(statusCode: 200)))
        outcome.statusCode = 1_000
        XCTAssertThrowsError(try OutboxRecord.decode(frame(kind: 2, try JSONEncoder().encode(outcome))))
        outcome.statusCode = nil
        XCTAssertThrowsError(try OutboxRecord.decode(frame(kind: 2, try JSONEncoder().encode(outcome))), "an answer without a status")
    }
}
