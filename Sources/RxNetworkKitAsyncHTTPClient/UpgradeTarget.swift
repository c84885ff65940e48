// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import Foundation
import NIOCore

/// Where a protocol-switch request connects: host, port and whether TLS wraps the connection, read
/// from its URL (http and ws on port 80 by default, https and wss with TLS on 443).
struct UpgradeTarget: Sendable, Equatable {
    /// The host name or IP address, without the brackets of an IPv6 literal.
    let host: String
    let port: Int
    let usesTLS: Bool
    /// The address to connect to without resolving, when `host` is an IP literal.
    let address: SocketAddress?

    /// Nil for a URL without a host or a valid port, or whose scheme is not http(s) or ws(s).
    init?(_ url: URL) {
        switch url.scheme?.lowercased() {
        case "http", "ws": usesTLS = false
        case "https", "wss": usesTLS = true
        default: return nil
        }
        guard var host = url.host, !host.isEmpty else { return nil }
        // Foundation drops the brackets of `[::1]`; some versions keep them.
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        let port = url.port ?? (usesTLS ? 443 : 80)
        guard (1...65_535).contains(port) else { return nil }
        self.host = host
        self.port = port
        self.address = try? SocketAddress(ipAddress: host, port: port)
    }

    /// The `Host` header for a request that has none: the port only when it is not the scheme's
    /// default, an IPv6 literal in brackets.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (usesTLS ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// The name sent in TLS's server name indication: the host, unless it is an IP literal (SNI
    /// carries names only).
    var serverName: String? {
        address == nil ? host : nil
    }
}
#endif
