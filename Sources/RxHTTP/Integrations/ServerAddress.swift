// Compiled with the package trait `Metrics` or `Tracing` only.
#if Metrics || Tracing
/// `server.address` and `server.port` of OpenTelemetry's conventions, read from a (redacted) URL
/// string without Foundation's URL parser: metrics read it for every event.
struct ServerAddress: Hashable, Sendable {
    /// The host: a name, an IPv4 address, or an IPv6 address without its brackets.
    let address: String
    /// The port: the URL's, or its scheme's default.
    let port: Int

    /// Nil for a string without `scheme://host`, or with a port that is not one.
    init?(url: String) {
        let bytes = Array(url.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
              bytes.count > colon + 2, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") else {
            return nil
        }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        let start = colon + 3
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") {
            end += 1
        }
        var authority = bytes[start..<end]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            authority = authority[(at + 1)...]
        }
        var host = authority
        var portDigits: ArraySlice<UInt8> = []
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = authority[(authority.startIndex + 1)..<close]
            if close + 1 < authority.endIndex {
                guard authority[close + 1] == UInt8(ascii: ":") else { return nil }
                portDigits = authority[(close + 2)...]
            }
        } else if let portColon = authority.lastIndex(of: UInt8(ascii: ":")) {
            host = authority[..<portColon]
            portDigits = authority[(portColon + 1)...]
        }
        guard !host.isEmpty else { return nil }
        address = String(decoding: host, as: UTF8.self).lowercased()
        if portDigits.isEmpty {
            switch scheme {
            case "https", "wss": port = 443
            default: port = 80
            }
        } else {
            guard portDigits.count <= 5, portDigits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let value = Int(String(decoding: portDigits, as: UTF8.self)), value <= 65_535 else {
                return nil
            }
            port = value
        }
    }
}
#endif
