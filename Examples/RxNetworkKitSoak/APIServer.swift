import Foundation
import Synchronization
import RxTesting

/// `serve-api --port P --t0 EPOCH --journal PATH` (the token key in the environment): the API of
/// the daemon soak, run as a child process that the parent kills and starts again.
///
/// - `GET /items/{id}`: an item with an `ETag` and `Cache-Control: max-age=5`; `304` to a matching
///   `If-None-Match`.
/// - `GET /feed`: a fresh answer every time (`no-store`), 50 ms late: the parent asks for it several
///   times at once, and coalescing should send one request.
/// - `POST /orders`: applies `{"order":…}` once per `Idempotency-Key` (see `APIJournal`), answers
///   200 ms later (a kill in between loses the answer of an applied order).
/// - `GET /events`: Server-Sent Events `1, 2, 3…`, resumed after `Last-Event-ID`; every connection
///   ends after 20 events (the stream drops).
/// - `GET /ws`: a WebSocket that sends 50 numbered messages, then drops.
/// - `GET /stats`: the journal's summary, across every incarnation.
///
/// Every route but `/stats` and `/ws` wants a valid bearer token (401 otherwise) and follows the
/// `DaemonSchedule` phase of the moment.
enum APIServer {
    static func serve(arguments: [String]) -> Never {
        func value(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { arguments.dropFirst($0 + 1).first }
        }
        guard let key = SoakTokenKey(), let t0 = value("--t0").flatMap(Double.init),
              let journalPath = value("--journal"), let journal = APIJournal(path: journalPath) else {
            print("error: serve-api needs --t0, --journal and the token key in its environment")
            exit(1)
        }
        let server = LoopbackHTTPServer(port: value("--port").flatMap { UInt16($0) } ?? 0, requestLogLimit: 10)
        let api = SoakAPI(schedule: DaemonSchedule(t0: Date(timeIntervalSince1970: t0)), key: key, journal: journal)
        // Routes first: clients retrying on this port get an answer from the first connection.
        api.route(server)
        do {
            try server.start()
        } catch {
            print("error: \(error)")
            exit(1)
        }
        journal.count("start")
        print(server.port)
        fflush(nil)
        while true { Thread.sleep(forTimeInterval: 3600) }
    }
}

/// The API's behaviour, shared by its route handlers.
final class SoakAPI: Sendable {
    private struct Quota {
        var window = -1
        var used = 0
    }

    /// What the phase of the moment does to a request.
    private enum Gate {
        case refuse(LoopbackHTTPResponse)
        case pass(headers: [(String, String)])
    }

    let schedule: DaemonSchedule
    let key: SoakTokenKey
    let journal: APIJournal
    private let quota = Mutex(Quota())
    private let sequence = Atomic<Int>(0)

    init(schedule: DaemonSchedule, key: SoakTokenKey, journal: APIJournal) {
        self.schedule = schedule
        self.key = key
        self.journal = journal
    }

    func route(_ server: LoopbackHTTPServer) {
        server.route(.get, "/items/*") { [self] request in answer(request, "items") { item(request, headers: $0) } }
        server.route(.get, "/feed") { [self] request in answer(request, "feed") { feed(headers: $0) } }
        server.route(.post, "/orders") { [self] request in answer(request, "orders") { order(request, headers: $0) } }
        server.route(.get, "/events") { [self] request in answer(request, "events", countsAgainstQuota: false) { _ in events(request) } }
        server.route(.get, "/ws") { [self] _ in webSocket() }
        server.route(.get, "/stats") { [self] _ in try .json(encoding: journal.summary()) }
    }

    /// Checks the token, then the phase, then builds the answer.
    private func answer(
        _ request: LoopbackHTTPRequest, _ name: String, countsAgainstQuota: Bool = true,
        _ build: ([(String, String)]) -> LoopbackHTTPResponse
    ) -> LoopbackHTTPResponse {
        let now = Date()
        let header = request.header("Authorization") ?? ""
        let token = header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : ""
        let verdict = key.check(token, now: now)
        guard verdict == .valid else {
            journal.count("401 \(verdict)")
            return .json(#"{"error":"invalid_token"}"#, status: 401)
        }
        switch gate(name, at: now, countsAgainstQuota: countsAgainstQuota) {
        case .refuse(let response):
            journal.count(response.status == 429 ? "429" : "5xx")
            return response
        case .pass(let headers):
            return build(headers)
        }
    }

    private func gate(_ name: String, at now: Date, countsAgainstQuota: Bool) -> Gate {
        switch schedule.phase(at: now) {
        case .normal:
            return .pass(headers: [])
        case .serverErrors:
            // Orders decide for themselves (some are applied before the answer is lost).
            return name == "orders" ? .pass(headers: []) : .refuse(.json(#"{"error":"unavailable"}"#, status: 503))
        case .tooManyRequests:
            return .refuse(LoopbackHTTPResponse.json(#"{"error":"slow down"}"#, status: 429)
                .withHeader("Retry-After", String(DaemonSchedule.stormRetryAfter)))
        case .rateLimited:
            guard countsAgainstQuota else { return .pass(headers: []) }
            let (window, secondsLeft) = schedule.quotaWindow(at: now)
            let reset = String(Int(secondsLeft.rounded(.up)))
            let used = quota.withLock { quota -> Int in
                if quota.window != window { quota = Quota(window: window, used: 0) }
                quota.used += 1
                return quota.used
            }
            let remaining = max(0, DaemonSchedule.quota - used)
            let headers = [("RateLimit-Limit", String(DaemonSchedule.quota)), ("RateLimit-Remaining", String(remaining)), ("RateLimit-Reset", reset)]
            guard used <= DaemonSchedule.quota else {
                var refusal = LoopbackHTTPResponse.json(#"{"error":"quota exceeded"}"#, status: 429).withHeader("Retry-After", reset)
                for (name, value) in headers { refusal = refusal.withHeader(name, value) }
                return .refuse(refusal)
            }
            return .pass(headers: headers)
        }
    }

    private func decorated(_ response: LoopbackHTTPResponse, _ headers: [(String, String)]) -> LoopbackHTTPResponse {
        headers.reduce(response) { $0.withHeader($1.0, $1.1) }
    }

    private func item(_ request: LoopbackHTTPRequest, headers: [(String, String)]) -> LoopbackHTTPResponse {
        guard let id = Int(request.path.dropFirst("/items/".count)) else { return .notFound }
        let version = schedule.itemVersion(at: Date())
        let etag = "\"v\(version)-\(id)\""
        let caching = [("ETag", etag), ("Cache-Control", "max-age=\(DaemonSchedule.itemMaxAge)")]
        if request.header("If-None-Match") == etag {
            journal.count("items 304")
            return decorated(.notModified, headers + caching)
        }
        journal.count("items 200")
        return decorated(.json(#"{"id":\#(id),"version":\#(version)}"#), headers + caching)
    }

    private func feed(headers: [(String, String)]) -> LoopbackHTTPResponse {
        journal.count("feed")
        let served = sequence.add(1, ordering: .relaxed).newValue
        return decorated(.json(#"{"served":"\#(getpid())-\#(served)"}"#), headers + [("Cache-Control", "no-store")]).delayed(by: 0.05)
    }

    private func order(_ request: LoopbackHTTPRequest, headers: [(String, String)]) -> LoopbackHTTPResponse {
        guard let key = request.header("Idempotency-Key"), !key.isEmpty, !key.contains(where: \.isWhitespace),
              let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
              let order = body["order"] as? String, !order.isEmpty, !order.contains(where: \.isWhitespace) else {
            journal.count("orders 400")
            return .json(#"{"error":"an order and an Idempotency-Key, please"}"#, status: 400)
        }
        let number = Int(order.split(separator: "-").last ?? "") ?? 0
        if schedule.phase(at: Date()) == .serverErrors && number % 2 == 1 {
            // Refused before anything happened.
            journal.count("5xx")
            return .json(#"{"error":"unavailable"}"#, status: 503)
        }
        let (applied, replayed) = journal.apply(key: key, order: order)
        if schedule.phase(at: Date()) == .serverErrors {
            // Applied, and the answer lost on the way (a gateway timing out on its upstream).
            journal.count("5xx")
            return .json(#"{"error":"bad gateway"}"#, status: 502)
        }
        journal.count(replayed ? "orders replayed" : "orders applied")
        return decorated(.json(#"{"order":"\#(applied)","key":"\#(key)","replayed":\#(replayed)}"#), headers).delayed(by: 0.2)
    }

    private func events(_ request: LoopbackHTTPRequest) -> LoopbackHTTPResponse {
        journal.count("events")
        let last = request.header("Last-Event-ID").flatMap { Int($0) } ?? 0
        var steps: [LoopbackStreamStep] = []
        for id in (last + 1)...(last + 20) {
            steps.append(.text("id: \(id)\nevent: tick\ndata: \(id)\n\n"))
            steps.append(.pause(0.25))
        }
        steps.append(.drop)
        return .eventStream(steps)
    }

    private func webSocket() -> LoopbackHTTPResponse {
        journal.count("ws")
        let connection = "\(getpid())-\(sequence.add(1, ordering: .relaxed).newValue)"
        var steps: [LoopbackWebSocketStep] = []
        for index in 0..<50 {
            steps.append(.send(.text("\(connection):\(index)")))
            steps.append(.pause(0.1))
        }
        steps.append(.drop)
        return .webSocket(steps)
    }
}
