import Foundation

/// The access tokens of the daemon soak: `<expiry, epoch ms>.<nonce>.<mac>`, the mac being
/// SipHash-2-4 of the first two parts under a key the parent hands the OAuth and API children in
/// their environment. The OAuth child mints them, the API checks them without asking anybody, as
/// a resource server checks a signed JWT.
struct SoakTokenKey: Sendable {
    /// The environment variable that carries the key (hex) to the children.
    static let environmentName = "RXSOAK_TOKEN_KEY"

    let k0: UInt64
    let k1: UInt64

    /// What the API makes of a presented token.
    enum Verdict: Equatable {
        case valid
        case expired
        case forged
    }

    /// A fresh random key.
    static func random() -> SoakTokenKey {
        var generator = SystemRandomNumberGenerator()
        return SoakTokenKey(k0: generator.next(), k1: generator.next())
    }

    init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    /// The key from this process's environment, if the parent put it there.
    init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let text = environment[Self.environmentName], text.count == 32,
              let k0 = UInt64(text.prefix(16), radix: 16), let k1 = UInt64(text.suffix(16), radix: 16) else { return nil }
        self.init(k0: k0, k1: k1)
    }

    /// The key as 32 hex digits, for the children's environment.
    var hex: String {
        String(format: "%016llx%016llx", k0, k1)
    }

    /// A token valid until `expiresAt`.
    func mint(expiresAt: Date, nonce: UInt64) -> String {
        let claims = "\(Int64(expiresAt.timeIntervalSince1970 * 1_000)).\(String(nonce, radix: 16))"
        return claims + "." + String(SipHash.hash(Array(claims.utf8), k0: k0, k1: k1), radix: 16)
    }

    /// Whether `token` was minted with this key and is still valid at `now`.
    func check(_ token: String, now: Date) -> Verdict {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let expiry = Int64(parts[0]) else { return .forged }
        let claims = parts[0] + "." + parts[1]
        guard String(SipHash.hash(Array(claims.utf8), k0: k0, k1: k1), radix: 16) == parts[2] else { return .forged }
        return Double(expiry) / 1_000 > now.timeIntervalSince1970 ? .valid : .expired
    }
}
