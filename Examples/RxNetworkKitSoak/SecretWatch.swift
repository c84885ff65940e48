import Foundation
import Synchronization

/// The secrets of the daemon soak (the client secret, the password, the tokens of the last few
/// credentials), and a check that none appears in a text the client produced: an error's
/// description, an event.
///
/// - Note: Thread-safe.
final class SecretWatch: Sendable {
    private struct State {
        var permanent: [String] = []
        var recent: [String] = []
        var leaks = 0
        var firstLeak: String?
    }

    /// How many tokens are kept (older ones are long expired).
    static let recentLimit = 8

    private let state = Mutex(State())

    /// Watches for `secret` for the whole run.
    func watch(permanently secret: String) {
        state.withLock { $0.permanent.append(secret) }
    }

    /// Watches for `secret` (a token) while it is one of the last few.
    func watch(_ secret: String) {
        state.withLock { state in
            guard !state.recent.contains(secret) else { return }
            state.recent.append(secret)
            if state.recent.count > Self.recentLimit { state.recent.removeFirst() }
        }
    }

    /// Counts a leak if `text` contains a secret; `context` names where the text came from.
    @discardableResult
    func check(_ text: String, context: String) -> Bool {
        state.withLock { state in
            guard (state.permanent + state.recent).contains(where: { text.contains($0) }) else { return false }
            state.leaks += 1
            state.firstLeak = state.firstLeak ?? context
            return true
        }
    }

    var leaks: (count: Int, first: String?) {
        state.withLock { ($0.leaks, $0.firstLeak) }
    }
}
