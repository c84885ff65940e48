import Foundation

/// The opening handshake of a WebSocket connection (RFC 6455 §4): the headers a client adds to its
/// upgrade request, and the check of the server's answer.
package enum WebSocketHandshake {
    /// The GUID a server appends to the key before hashing (§1.3).
    private static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Why a server's answer to the upgrade request does not open a WebSocket.
    package enum Failure: Error, Equatable, Sendable {
        /// The status is not 101 (the caller reads the status itself: a 401 is the authenticator's).
        case notSwitchingProtocols(status: Int)
        /// `Upgrade: websocket` or `Connection: Upgrade` is missing (§4.1, items 2 and 3).
        case missingUpgradeHeaders
        /// `Sec-WebSocket-Accept` is missing or not the hash of the key sent (§4.1, item 4).
        case wrongAccept
        /// The server chose a subprotocol the client did not offer (§4.1, item 6).
        case unofferedProtocol(String)
        /// The server named an extension, and the client offered none (§4.1, item 5).
        case unofferedExtension(String)
    }

    /// A fresh `Sec-WebSocket-Key`: 16 random bytes, base64 (§4.1).
    package static func makeKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64EncodedString()
    }

    /// The `Sec-WebSocket-Accept` a server answers to `key` (§4.2.2, item 5.4).
    package static func accept(for key: String) -> String {
        Data(SHA1.digest(Array((key + guid).utf8))).base64EncodedString()
    }

    /// The headers of the upgrade request, besides those of any request (§4.1).
    ///
    /// - Parameters:
    ///   - key: From `makeKey()`, kept to check the answer.
    ///   - protocols: The subprotocols offered, in order of preference; none when empty.
    package static func requestHeaders(key: String, protocols: [String]) -> [String: String] {
        var headers = [
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Key": key,
            "Sec-WebSocket-Version": "13",
        ]
        if !protocols.isEmpty {
            headers["Sec-WebSocket-Protocol"] = protocols.joined(separator: ", ")
        }
        return headers
    }

    /// Checks the server's answer; returns the subprotocol it chose, if any.
    ///
    /// - Parameters:
    ///   - status: The answer's status code.
    ///   - headers: Its headers (names in any case).
    ///   - key: The `Sec-WebSocket-Key` sent.
    ///   - protocols: The subprotocols offered.
    /// - Throws: `Failure` naming the first rule the answer breaks.
    package static func validate(
        status: Int, headers: HTTPHeaders, key: String, protocols: [String]
    ) throws(Failure) -> String? {
        guard status == 101 else { throw .notSwitchingProtocols(status: status) }
        func value(_ name: String) -> String? {
            headers[name]
        }
        let connectionTokens = (value("Connection") ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard value("Upgrade")?.trimmingCharacters(in: .whitespaces).lowercased() == "websocket",
              connectionTokens.contains("upgrade") else { throw .missingUpgradeHeaders }
        guard value("Sec-WebSocket-Accept")?.trimmingCharacters(in: .whitespaces) == accept(for: key) else {
            throw .wrongAccept
        }
        if let extensions = value("Sec-WebSocket-Extensions")?.trimmingCharacters(in: .whitespaces), !extensions.isEmpty {
            throw .unofferedExtension(String(extensions.prefix(100)))
        }
        guard let chosen = value("Sec-WebSocket-Protocol")?.trimmingCharacters(in: .whitespaces), !chosen.isEmpty else {
            return nil
        }
        guard protocols.contains(chosen) else { throw .unofferedProtocol(String(chosen.prefix(100))) }
        return chosen
    }
}
