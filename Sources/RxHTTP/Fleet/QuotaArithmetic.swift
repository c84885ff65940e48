import Foundation

/// The token bucket arithmetic both engines run (the PostgreSQL engine inside one transaction, the
/// same-host one under the bucket's file lock): set the member's account to what it says it holds,
/// refill by the time elapsed — never above the capacity less what is out on lease — and grant
/// what is there.
enum QuotaArithmetic {
    static func settle(
        tokens: inout Double, at: inout TimeInterval, accounts: inout [String: Int], request: QuotaLeaseRequest, now: TimeInterval
    ) -> QuotaGrant {
        // What the replica says it holds, at most the capacity: its account is set, not moved.
        let capacity = request.capacity.isFinite ? Int(min(max(0, request.capacity), 1e9)) : 0
        accounts[request.member] = max(0, min(request.holding, capacity))
        let leased = Double(accounts.values.reduce(0, +))
        let elapsed = max(0, now - at)
        tokens = min(max(0, request.capacity - leased), tokens + elapsed * request.rate + Double(max(0, request.returned)))
        at = now
        let granted = max(0, min(request.want, Int(tokens.rounded(.down))))
        tokens -= Double(granted)
        if granted > 0 { accounts[request.member, default: 0] += granted }
        if accounts[request.member] == 0 { accounts[request.member] = nil }
        guard granted < request.want else { return QuotaGrant(granted: granted, nextTokenIn: nil) }
        // The next whole token, or — when the leases out fill the capacity — a short look again.
        let room = request.capacity - leased - Double(granted)
        let wait = room >= 1 ? (1 - (tokens - tokens.rounded(.down))) / request.rate : 0.05
        return QuotaGrant(granted: granted, nextTokenIn: min(max(0.001, wait), 60))
    }
}
