@testable import RxHTTP
import XCTest

/// The opening handshake (RFC 6455 §4) and the SHA-1 it needs (RFC 3174's test vectors).
final class WebSocketHandshakeTests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    func testSHA1OfRFC3174sVectorsAndOfEveryPaddingLength() {
        XCTAssertEqual(hex(SHA1.digest(Array("abc".utf8))), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
                       "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        XCTAssertEqual(hex(SHA1.digest([UInt8]())), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        XCTAssertEqual(hex(SHA1.digest(Array(repeating: UInt8(ascii: "a"), count: 1_000_000))),
                       "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
        // 55, 56 and 64 bytes: the padding fits, does not, and a whole block.
        XCTAssertEqual(hex(SHA1.digest(Array(repeating: UInt8(ascii: "a"), count: 55))), "c1c8bbdc22796e28c0e15163d20899b65621d65a")
        XCTAssertEqual(hex(SHA1.digest(Array(repeating: UInt8(ascii: "a"), count: 56))), "c2db330f6083854c99d4b5bfb6e8f29f201be699")
        XCTAssertEqual(hex(SHA1.digest(Array(repeating: UInt8(ascii: "a"), count: 64))), "0098ba824b5c16427bd7a1122a5a442a25ec644d")
    }

    func testSection1_3TheAcceptOfTheSampleKey() {
        XCTAssertEqual(WebSocketHandshake.accept(for: "dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    func testAKeyIsSixteenFreshRandomBytes() {
        let key = WebSocketHandshake.makeKey()
        XCTAssertEqual(Data(base64Encoded: key)?.count, 16)
        XCTAssertNotEqual(key, WebSocketHandshake.makeKey())
        let headers = WebSocketHandshake.requestHeaders(key: key, protocols: ["chat", "superchat"])
        XCTAssertEqual(headers["Sec-WebSocket-Version"], "13")
        XCTAssertEqual(headers["Sec-WebSocket-Protocol"], "chat, superchat")
        XCTAssertNil(WebSocketHandshake.requestHeaders(key: key, protocols: [])["Sec-WebSocket-Protocol"])
    }

    func testSection4_1TheClientChecksTheAnswer() throws {
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        let good = ["upgrade": "WebSocket", "connection": "keep-alive, Upgrade", "sec-websocket-accept": "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="]
        XCTAssertNil(try WebSocketHandshake.validate(status: 101, headers: HTTPHeaders(good), key: key, protocols: []))
        XCTAssertEqual(try WebSocketHandshake.validate(status: 101, headers: HTTPHeaders(good.merging(["Sec-WebSocket-Protocol": "chat"]) { $1 }),
                                                       key: key, protocols: ["chat"]), "chat")
        func failure(_ status: Int, _ headers: [String: String], protocols: [String] = []) -> WebSocketHandshake.Failure? {
            do {
                _ = try WebSocketHandshake.validate(status: status, headers: HTTPHeaders(headers), key: key, protocols: protocols)
                return nil
            } catch {
                return error
            }
        }
        XCTAssertEqual(failure(200, good), .notSwitchingProtocols(status: 200))
        XCTAssertEqual(failure(101, good.merging(["upgrade": "h2c"]) { $1 }), .missingUpgradeHeaders)
        XCTAssertEqual(failure(101, good.merging(["connection": "close"]) { $1 }), .missingUpgradeHeaders)
        XCTAssertEqual(failure(101, good.merging(["sec-websocket-accept": "AAAA"]) { $1 }), .wrongAccept)
        XCTAssertEqual(failure(101, good.filter { $0.key != "sec-websocket-accept" }), .wrongAccept)
        XCTAssertEqual(failure(101, good.merging(["Sec-WebSocket-Protocol": "other"]) { $1 }, protocols: ["chat"]),
                       .unofferedProtocol("other"))
        XCTAssertEqual(failure(101, good.merging(["Sec-WebSocket-Extensions": "permessage-deflate"]) { $1 }),
                       .unofferedExtension("permessage-deflate"))
    }
}
