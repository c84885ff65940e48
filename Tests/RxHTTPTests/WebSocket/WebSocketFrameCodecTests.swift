@testable import RxHTTP
import XCTest

/// The WebSocket frame parser, encoder and message assembler without a socket (RFC 6455): the
/// examples of §5.7 byte for byte, every length form, any split of the bytes, and each rule a peer
/// can break, with the close code it earns (§7.4.1).
final class WebSocketFrameCodecTests: XCTestCase {
    private func frames(_ bytes: [UInt8], role: WebSocketFrameParser.Role = .client, limit: Int = 1 << 20,
                        split: Int? = nil) throws -> [WebSocketFrame] {
        var parser = WebSocketFrameParser(role: role, maxFrameSize: limit)
        var parsed: [WebSocketFrame] = []
        var offset = 0
        let step = split ?? max(1, bytes.count)
        repeat {
            parser.append(bytes[offset..<min(bytes.count, offset + step)])
            offset += step
            while let frame = try parser.next() {
                parsed.append(frame)
            }
        } while offset < bytes.count
        XCTAssertEqual(parser.bufferedByteCount, 0, "every byte belongs to a frame")
        return parsed
    }

    private func error(_ bytes: [UInt8], role: WebSocketFrameParser.Role = .client, limit: Int = 1 << 20) -> WebSocketProtocolError? {
        do {
            _ = try frames(bytes, role: role, limit: limit)
            return nil
        } catch {
            return error as? WebSocketProtocolError
        }
    }

    private let hello = Array("Hello".utf8)

    // MARK: RFC 6455 §5.7

    func testSection5_7ASingleUnmaskedTextFrame() throws {
        XCTAssertEqual(try frames([0x81, 0x05] + hello), [WebSocketFrame(opcode: .text, payload: hello)])
        XCTAssertEqual([UInt8](WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: hello), mask: nil)), [0x81, 0x05] + hello)
    }

    func testSection5_7ASingleMaskedTextFrame() throws {
        let bytes: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        XCTAssertEqual(try frames(bytes, role: .server), [WebSocketFrame(opcode: .text, payload: hello)])
        XCTAssertEqual([UInt8](WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: hello), mask: 0x37FA_213D)), bytes)
    }

    func testSection5_7AFragmentedTextMessageWithAPingBetween() throws {
        let bytes: [UInt8] = [0x01, 0x03] + Array("Hel".utf8) + [0x89, 0x05] + hello + [0x80, 0x02] + Array("lo".utf8)
        var assembler = WebSocketMessageAssembler(maxMessageSize: 100)
        let inbound = try frames(bytes, split: 1).compactMap { try assembler.receive($0) }
        XCTAssertEqual(inbound, [.ping(Data(hello)), .text("Hello")])
    }

    func testSection5_7The16And64BitLengthForms() throws {
        for count in [125, 126, 256, 65_535, 65_536, 70_000] {
            let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0) }
            let frame = WebSocketFrame(opcode: .binary, payload: payload)
            let unmasked = [UInt8](WebSocketFrameEncoder.encode(frame, mask: nil))
            let header: [UInt8] = count < 126 ? [0x82, UInt8(count)]
                : count <= 65_535 ? [0x82, 0x7E, UInt8(count >> 8), UInt8(count & 0xFF)]
                : [0x82, 0x7F, 0, 0, 0, 0, 0, UInt8(count >> 16), UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)]
            XCTAssertEqual(Array(unmasked.prefix(header.count)), header, "\(count) bytes")
            XCTAssertEqual(try frames(unmasked, split: 4096), [frame])
            let masked = [UInt8](WebSocketFrameEncoder.encode(frame, mask: WebSocketFrameEncoder.randomMask()))
            XCTAssertEqual(try frames(masked, role: .server, split: 1000), [frame], "\(count) bytes, masked")
        }
    }

    func testAnySplitOfSeveralFramesGivesTheSameFrames() throws {
        let sent = [
            WebSocketFrame(opcode: .text, payload: Array("héllo wörld".utf8)),
            WebSocketFrame(opcode: .ping, payload: []),
            WebSocketFrame(opcode: .binary, payload: Array(repeating: 7, count: 300)),
            WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]),
        ]
        let bytes = sent.flatMap { WebSocketFrameEncoder.encode($0, mask: 0x0102_0304) }
        for split in [1, 2, 3, 7, 64, bytes.count] {
            XCTAssertEqual(try frames(bytes, role: .server, split: split), sent, "split \(split)")
        }
    }

    // MARK: Frame rules

    func testReservedBitsAndOpcodesFailWith1002() {
        XCTAssertEqual(error([0xC1, 0x00]), .reservedBitsSet)
        XCTAssertEqual(error([0x83, 0x00]), .reservedOpcode(3))
        XCTAssertEqual(error([0x8B, 0x00]), .reservedOpcode(0xB))
        XCTAssertEqual(WebSocketProtocolError.reservedBitsSet.closeCode, 1002)
    }

    func testSection5_5ControlFramesAreWholeAndShort() {
        XCTAssertEqual(error([0x09, 0x00]), .invalidControlFrame, "a fragmented ping")
        XCTAssertEqual(error([0x89, 0x7E, 0x00, 0x7E] + Array(repeating: 0, count: 126)), .invalidControlFrame)
        XCTAssertNil(error([0x89, 0x7D] + Array(repeating: 0, count: 125)), "125 bytes is allowed")
    }

    func testSection5_1MaskingByRole() {
        XCTAssertEqual(error([0x81, 0x80, 1, 2, 3, 4], role: .client), .wrongMasking, "a server must not mask")
        XCTAssertEqual(error([0x81, 0x00], role: .server), .wrongMasking, "a client must mask")
    }

    func testALengthWithItsTopBitSetFails() {
        XCTAssertEqual(error([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0]), .invalidLength)
    }

    func testAFrameOverTheLimitFailsFromItsHeaderBeforeItsPayloadArrives() throws {
        var parser = WebSocketFrameParser(role: .client, maxFrameSize: 1_000)
        parser.append([0x82, 0x7F, 0, 0, 0, 1, 0, 0, 0, 0]) // 4 GiB announced, nothing sent
        XCTAssertThrowsError(try parser.next()) { XCTAssertEqual($0 as? WebSocketProtocolError, .tooBig(limit: 1_000)) }
        XCTAssertEqual(WebSocketProtocolError.tooBig(limit: 1).closeCode, 1009)
    }

    func testAnIncompleteFrameWaitsForItsBytes() throws {
        var parser = WebSocketFrameParser(role: .client, maxFrameSize: 100)
        parser.append([0x81, 0x05, 0x48])
        XCTAssertNil(try parser.next())
        parser.append([0x65, 0x6C, 0x6C, 0x6F])
        XCTAssertEqual(try parser.next(), WebSocketFrame(opcode: .text, payload: hello))
        XCTAssertNil(try parser.next())
    }

    func testAReadCutInsideAFrameKeepsOnlyThatFramesBytesAndPayloadsStartAtZero() throws {
        var parser = WebSocketFrameParser(role: .client, maxFrameSize: 100)
        let whole: [UInt8] = [0x82, 0x03, 1, 2, 3]
        parser.append(Data(whole + whole + [0x82, 0x03, 4]))
        let first = try XCTUnwrap(parser.next())
        XCTAssertEqual(first.payload.startIndex, 0, "a payload is no slice of the read")
        XCTAssertEqual(first.payload[0], 1)
        XCTAssertNotNil(try parser.next())
        XCTAssertNil(try parser.next())
        XCTAssertEqual(parser.bufferedByteCount, 3, "the cut frame's three bytes, nothing before them")
        parser.append(Data([5, 6, 0x89, 0x00]))
        XCTAssertEqual(try parser.next(), WebSocketFrame(opcode: .binary, payload: [4, 5, 6]))
        XCTAssertEqual(try parser.next(), WebSocketFrame(opcode: .ping, payload: []))
        XCTAssertEqual(parser.bufferedByteCount, 0)
    }

    // MARK: Messages

    func testFragmentsOutOfOrderFailWith1002() {
        var assembler = WebSocketMessageAssembler(maxMessageSize: 100)
        XCTAssertThrowsError(try assembler.receive(WebSocketFrame(opcode: .continuation, payload: hello))) {
            XCTAssertEqual($0 as? WebSocketProtocolError, .unexpectedFragment)
        }
        var interrupted = WebSocketMessageAssembler(maxMessageSize: 100)
        XCTAssertNil(try interrupted.receive(WebSocketFrame(isFinal: false, opcode: .binary, payload: hello)))
        XCTAssertThrowsError(try interrupted.receive(WebSocketFrame(opcode: .text, payload: hello))) {
            XCTAssertEqual($0 as? WebSocketProtocolError, .unexpectedFragment)
        }
    }

    func testAMessageOverTheLimitAcrossFragmentsFailsWith1009() throws {
        var assembler = WebSocketMessageAssembler(maxMessageSize: 8)
        XCTAssertNil(try assembler.receive(WebSocketFrame(isFinal: false, opcode: .binary, payload: hello)))
        XCTAssertThrowsError(try assembler.receive(WebSocketFrame(opcode: .continuation, payload: hello))) {
            XCTAssertEqual($0 as? WebSocketProtocolError, .tooBig(limit: 8))
        }
        var exact = WebSocketMessageAssembler(maxMessageSize: 10)
        XCTAssertNil(try exact.receive(WebSocketFrame(isFinal: false, opcode: .binary, payload: hello)))
        XCTAssertEqual(try exact.receive(WebSocketFrame(opcode: .continuation, payload: hello)), .binary(Data(hello + hello)))
    }

    func testSection8_1TextMustBeUTF8EvenSplitMidCharacter() throws {
        let euro = Array("€".utf8) // three bytes
        var assembler = WebSocketMessageAssembler(maxMessageSize: 100)
        XCTAssertNil(try assembler.receive(WebSocketFrame(isFinal: false, opcode: .text, payload: [euro[0]])))
        XCTAssertEqual(try assembler.receive(WebSocketFrame(opcode: .continuation, payload: Array(euro[1...]))), .text("€"))
        XCTAssertThrowsError(try assembler.receive(WebSocketFrame(opcode: .text, payload: [0xC3, 0x28]))) {
            XCTAssertEqual($0 as? WebSocketProtocolError, .invalidUTF8)
            XCTAssertEqual(($0 as? WebSocketProtocolError)?.closeCode, 1007)
        }
    }

    func testSection7_4CloseFrames() throws {
        var assembler = WebSocketMessageAssembler(maxMessageSize: 100)
        XCTAssertEqual(try assembler.receive(WebSocketFrame(opcode: .close, payload: [])), .close(code: nil, reason: ""))
        XCTAssertEqual(try assembler.receive(WebSocketFrame(opcode: .close, payload: [0x0F, 0xA0] + Array("bye".utf8))),
                       .close(code: 4000, reason: "bye"))
        for invalid: [UInt8] in [[0x03], [0x03, 0xED], [0x03, 0xEE], [0x03, 0xF7], [0x07, 0xD0], [0x13, 0x88]] {
            XCTAssertThrowsError(try assembler.receive(WebSocketFrame(opcode: .close, payload: invalid)), "\(invalid)") {
                XCTAssertEqual($0 as? WebSocketProtocolError, .invalidClose)
            }
        }
        XCTAssertThrowsError(try assembler.receive(WebSocketFrame(opcode: .close, payload: [0x03, 0xE8, 0xFF]))) {
            XCTAssertEqual($0 as? WebSocketProtocolError, .invalidUTF8)
        }
    }
}
