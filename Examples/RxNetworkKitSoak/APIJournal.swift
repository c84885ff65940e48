import Foundation
import Synchronization

/// The soak API's durable state, shared by every incarnation of the API child: one line per
/// event appended to a file (one `write` each, so a SIGKILL leaves whole lines), read back when a
/// new incarnation starts and when `/stats` is asked.
///
/// - `apply <key> <order>`: a POST applied under its `Idempotency-Key` — the server's one side
///   effect. A key seen before is answered from here (`replay <key> <order>`) and not applied again.
/// - any other word: a counter (`start`, `items 200`, `items 304`, `feed`, `429`, `5xx`, `401`…).
///
/// - Note: Thread-safe: the route handlers run on the connections' threads.
final class APIJournal: Sendable {
    private struct State {
        /// Every key applied so far, with the order it applied.
        var keys: [String: String]
    }

    /// What the journal holds, summed over every incarnation of the API.
    struct Summary: Codable, Sendable {
        /// Each order applied, with the keys it was applied under (one, if all went well).
        var applications: [String: [String]] = [:]
        /// Keys answered from the journal instead of being applied again.
        var replays = 0
        /// The counters, by word.
        var counts: [String: Int] = [:]
    }

    let path: String
    private let fd: Int32
    private let state: Mutex<State>

    /// Opens (or creates, mode 0600) the journal at `path` and reads back the keys applied so far.
    init?(path: String) {
        var keys: [String: String] = [:]
        if let text = try? String(contentsOfFile: path, encoding: .utf8) {
            for line in text.split(separator: "\n") {
                let fields = line.split(separator: " ")
                if fields.count == 3, fields[0] == "apply" { keys[String(fields[1])] = String(fields[2]) }
            }
        }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        self.path = path
        self.fd = fd
        self.state = Mutex(State(keys: keys))
    }

    deinit {
        close(fd)
    }

    /// Applies `order` under `key` unless the key was applied before, in which case the stored
    /// order comes back with `replayed` true.
    func apply(key: String, order: String) -> (order: String, replayed: Bool) {
        state.withLock { state in
            if let stored = state.keys[key] {
                append("replay \(key) \(stored)")
                return (stored, true)
            }
            state.keys[key] = order
            append("apply \(key) \(order)")
            return (order, false)
        }
    }

    /// Counts one `event` (a word or two, no newline).
    func count(_ event: String) {
        state.withLock { _ in append(event) }
    }

    private func append(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Reads the whole journal back.
    func summary() -> Summary {
        var summary = Summary()
        guard let text = state.withLock({ _ in try? String(contentsOfFile: path, encoding: .utf8) }) else { return summary }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 3, fields[0] == "apply" {
                summary.applications[String(fields[2]), default: []].append(String(fields[1]))
            } else if fields.count == 3, fields[0] == "replay" {
                summary.replays += 1
            } else {
                summary.counts[String(line), default: 0] += 1
            }
        }
        return summary
    }
}
