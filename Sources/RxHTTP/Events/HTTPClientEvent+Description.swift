import Foundation

// What `print(event)` shows: short words, never a type path or an `Optional(...)`, never a secret.

extension HTTPClientEvent.Outcome: CustomStringConvertible {
    /// `200`, `503 unacceptableStatusCode`, `transport (not sent)`.
    public var description: String {
        switch self {
        case .success(let statusCode):
            return String(statusCode)
        case .failure(let code, let statusCode?, _):
            return "\(statusCode) \(code.rawValue)"
        case .failure(let code, nil, let phase):
            return "\(code.rawValue) (\(phase.readable))"
        }
    }
}

extension HTTPClientEvent.Kind: CustomStringConvertible {
    /// One short phrase per kind: `completed: 503 unacceptableStatusCode after 7 attempts in 1.58 s`.
    public var description: String {
        switch self {
        case .started:
            return "started"
        case .held(let reason):
            return "held (\(reason.rawValue))"
        case .attemptStarted(let attempt):
            return "attempt \(attempt) sent"
        case .response(let attempt, let statusCode, let duration):
            return "attempt \(attempt): \(statusCode) in \(Self.seconds(duration))"
        case .attemptFailed(let attempt, let code, let phase, let duration):
            return "attempt \(attempt): \(code.rawValue) (\(phase.readable)) after \(Self.seconds(duration))"
        case .retryScheduled(let nextAttempt, let delay, let code, let statusCode):
            let cause = statusCode.map { "\($0) \(code.rawValue)" } ?? code.rawValue
            return "attempt \(nextAttempt) in \(Self.seconds(delay)) after \(cause)"
        case .waitEnded(let trigger, let waited):
            return "wait ended by \(trigger.rawValue) after \(Self.seconds(waited))"
        case .authRefreshStarted:
            return "credential refresh started"
        case .authRefreshEnded(let succeeded, let code):
            return succeeded ? "credential refreshed" : "credential refresh failed: \(code?.rawValue ?? "?")"
        case .circuitChanged(let state):
            return "circuit \(state)"
        case .completed(let outcome, let duration, let attempts):
            return "\(outcome) after \(attempts) attempt\(attempts == 1 ? "" : "s") in \(Self.seconds(duration))"
        case .webSocketOpened(let selected):
            return "WebSocket open" + (selected.map { " (\($0))" } ?? "")
        case .webSocketReconnecting(let attempt, let delay, let code):
            return "WebSocket reconnect \(attempt) in \(Self.seconds(delay)) after \(code.rawValue)"
        case .webSocketClosed(let code, let received, let sent):
            return "WebSocket closed with \(code) after \(received) received, \(sent) sent"
        case .fleetEngineChanged(let available):
            return available ? "the fleet's engine is back" : "the fleet's engine is away: local protection"
        case .outboxEnqueued(let entry, let depth):
            return "outbox entry \(entry.uuidString) stored (\(depth) waiting)"
        case .outboxAttempt(let entry, let attempt):
            return "outbox entry \(entry.uuidString): delivery \(attempt)"
        case .outboxOutcome(let entry, let outcome, let recovered, let depth):
            return "outbox entry \(entry.uuidString): \(outcome)\(recovered ? " (recorded before a restart)" : "") (\(depth) in the outbox)"
        }
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value < 10 ? String(format: "%.3g s", value) : String(format: "%.1f s", value)
    }
}

extension CircuitState: CustomStringConvertible {
    /// `closed`, `half-open`, `open until 2026-11-27T09:00:00Z`.
    public var description: String {
        switch self {
        case .closed: return "closed"
        case .halfOpen: return "half-open"
        case .open(let until): return "open until \(until.formatted(.iso8601))"
        }
    }
}

extension HTTPClientError.Code: CustomStringConvertible {
    /// The case's name: `unacceptableStatusCode`.
    public var description: String { rawValue }
}

extension HTTPClientError.Phase: CustomStringConvertible {
    /// The case's name: `notSent`.
    public var description: String { rawValue }

    /// In words: `not sent`, `sent, no response`, `responded`.
    var readable: String {
        switch self {
        case .notSent: return "not sent"
        case .sentWithoutResponse: return "sent, no response"
        case .responded: return "responded"
        }
    }
}
