import Foundation
import RxNetworkKit
import RxTesting

/// `RxNetworkKitSoak hostile [--rounds 20]`: every bad-input case a hostile server or caller can
/// produce, through the public API only, in rounds. After each round it checks that live RxCore
/// resources are back at their baseline (debug builds count them) and that open descriptors do
/// not grow; at the end it shuts the client down and shows whether the sockets still open after a
/// round were pooled keep-alive connections (they close with the session) or a leak (they stay).
///
/// The daemon soak runs the same rounds (`round(client:target:)`) on its long-lived client against
/// these routes in a child process (`serve-hostile`, see HostileServer.swift).
enum HostileRounds {
    struct Case {
        let name: String
        let run: (HTTPClient, any HostileTarget) -> String
    }

    static func run(rounds: Int) -> Bool {
        guard let (server, other) = startServers() else { return false }
        warmUpDispatch()
        let descriptorsBefore = openFileDescriptors()
        let kindsBefore = descriptorKinds()
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 2, maxResponseBodySize: 4 << 20))
        // The client's own objects (its reachability) are not the rounds' business.
        let resourcesBefore = Resources.total
        let cases = everyCase()
        print("hostile soak: \(cases.count) cases × \(rounds) rounds, one client, servers on ports \(server.port) and \(other.port)")
        var outcomes: [String: [String: Int]] = [:]
        var floors: [Int] = []
        var resourcesAfterRounds: [Int] = []
        var ok = true
        for round in 1...rounds {
            for (name, outcome) in Self.round(client: client, target: server, cases: cases) {
                outcomes[name, default: [:]][outcome, default: 0] += 1
            }
            // Work disposed on background queues may finish a moment later.
            let settle = Date().addingTimeInterval(2)
            while Resources.isCounting && Resources.total != resourcesBefore && Date() < settle {
                Thread.sleep(forTimeInterval: 0.005)
            }
            let descriptors = openFileDescriptors()
            floors.append(descriptors)
            resourcesAfterRounds.append(Resources.total - resourcesBefore)
            print("  round \(round): open fds \(descriptors) (\(descriptors - descriptorsBefore) over the start: \(difference(descriptorKinds(), kindsBefore))), "
                  + "server connections open \(server.openConnectionCount), live RxCore resources over baseline \(Resources.total - resourcesBefore), "
                  + "RSS \(residentSetKiB() / 1_024) MiB")
            fflush(nil)
        }
        for (name, counts) in outcomes.sorted(by: { $0.key < $1.key }) {
            print("  \(name.padding(toLength: 38, withPad: " ", startingAt: 0)) \(counts.map { "\($0.key) ×\($0.value)" }.sorted().joined(separator: ", "))")
            if counts.keys.contains(where: { $0.hasPrefix("UNEXPECTED") }) { ok = false }
        }
        let growth = (floors.last ?? 0) - (floors.first ?? 0)
        let pooledBefore = (floors.last ?? 0) - descriptorsBefore
        _ = client.shutdown(gracePeriod: 1).subscribe()
        let drained = Date().addingTimeInterval(5)
        while client.isShutdownStarted && openFileDescriptors() > descriptorsBefore && Date() < drained {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let afterShutdown = openFileDescriptors() - descriptorsBefore
        print("  after shutdown, over the start: \(difference(descriptorKinds(), kindsBefore))")
        print("  descriptors: \(pooledBefore) more than before the client after the last round, growth across rounds \(growth); "
              + "after shutdown \(afterShutdown) → \(afterShutdown <= 0 ? "they were pooled keep-alive connections, closed with the session" : "LEAKED")")
        let resourcesOK = !Resources.isCounting || resourcesAfterRounds.allSatisfy { $0 == 0 }
        print("  live RxCore resources after each round: \(Resources.isCounting ? resourcesAfterRounds.map(String.init).joined(separator: " ") : "not counted in release builds")")
        ok = ok && growth <= 0 && afterShutdown <= 0 && resourcesOK
        print("  goals \(ok ? "met" : "NOT met") (every case a typed error or a correct success, no fd growth, resources back to baseline)")
        server.stop()
        other.stop()
        return ok
    }

    /// Open descriptors by kind: `socket`, `pipe`, `anon_inode:[eventpoll]`, … (Linux /proc/self/fd).
    static func descriptorKinds() -> [String: Int] {
        let directory = "/proc/self/fd"
        var kinds: [String: Int] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + entry) else { continue }
            let kind = target.hasPrefix("socket:") ? "socket" : target.hasPrefix("pipe:") ? "pipe" : target.hasPrefix("/") ? "file" : target
            kinds[kind, default: 0] += 1
        }
        return kinds
    }

    static func difference(_ now: [String: Int], _ before: [String: Int]) -> String {
        let keys = Set(now.keys).union(before.keys).sorted()
        let parts = keys.compactMap { key -> String? in
            let delta = now[key, default: 0] - before[key, default: 0]
            return delta == 0 ? nil : "\(key) \(delta > 0 ? "+" : "")\(delta)"
        }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }

    /// One round: every case once, in order, on `client` against the routes of `target`; each
    /// case's outcome as a label (`UNEXPECTED …` when it is not one the case allows).
    static func round(client: HTTPClient, target: any HostileTarget, cases: [Case] = everyCase()) -> [(name: String, outcome: String)] {
        cases.map { ($0.name, $0.run(client, target)) }
    }

    /// The hostile server and the other origin of `/cross-origin`, started and routed; nil (said
    /// why) if either could not start.
    static func startServers() -> (server: LoopbackHTTPServer, other: LoopbackHTTPServer)? {
        let server = LoopbackHTTPServer(requestLogLimit: 100)
        let other = LoopbackHTTPServer(requestLogLimit: 100)
        do {
            try server.start()
            try other.start()
        } catch {
            print("could not start the servers: \(error)")
            return nil
        }
        routeEverything(server, other)
        return (server, other)
    }

    static func routeEverything(_ server: LoopbackHTTPServer, _ other: LoopbackHTTPServer) {
        server.route(.get, "/bomb", .gzipBomb(inflatedSize: 256 << 20))
        server.route(.get, "/big", .data(Data(count: 8 << 20)).chunked(chunkSize: 65_536))
        server.route(.get, "/dup-length", .raw("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 10\r\n\r\nhelloworld"))
        server.route(.get, "/length-and-chunked", .raw("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"))
        server.route(.get, "/absurd-length", .raw("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\nshort"))
        server.route(.get, "/truncated", .raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"))
        server.route(.get, "/garbage", .raw("GARBAGE\r\n\r\nhello"))
        server.route(.get, "/http09", .raw("hello world"))
        server.route(.get, "/302-no-location", .text("moved", status: 302))
        server.route(.get, "/to-file", LoopbackHTTPResponse.status(302).withHeader("Location", "file:///etc/passwd"))
        server.route(.get, "/to-data", LoopbackHTTPResponse.status(302).withHeader("Location", "data:text/plain,secret"))
        server.route(.get, "/cross-origin", LoopbackHTTPResponse.status(307).withHeader("Location", other.url("/landing").absoluteString))
        other.route(.get, "/landing") { request in .text(request.header("Authorization") == nil ? "clean" : "LEAKED") }
        server.route(.get, "/loop", LoopbackHTTPResponse.status(302).withHeader("Location", "/loop"))
        server.route(.get, "/drop", .dropConnection)
        server.route(.get, "/trickle", LoopbackHTTPResponse.text(String(repeating: "x", count: 200)).trickled(delayPerByte: 0.05))
        server.route(.get, "/basic-401", LoopbackHTTPResponse.json(#"{"e":1}"#, status: 401).withHeader("WWW-Authenticate", #"Basic realm="x""#))
        server.route(.get, "/html", .text("<html>oops</html>"))
        server.route(.get, "/not-utf8", .data(Data([0xC3, 0x28, 0xFF]), contentType: "application/json"))
        server.route(.get, "/empty", .json(""))
        server.route(.get, "/ok", .json(#"{"id":1,"name":"ok"}"#))
        server.route(.get, "/slow", LoopbackHTTPResponse.text("late").delayed(by: 0.3))
    }

    private struct User: Decodable { let id: Int; let name: String }

    /// The cases' requests go to the hostile server (not necessarily the client's base URL), once
    /// (a client's retry policy would change what the case observes), and unsigned (a client's
    /// authenticator must not hand its token to a hostile host).
    private struct Text: RetryableRequest {
        typealias Response = String
        let path: String
        var baseURL: URL?
        var timeout: TimeInterval?
        var headers: [String: String] = [:]
        var requiresAuthentication: Bool { false }
        var retryPolicy: RetryPolicy { .none }
    }

    /// A decoded request, as `requestObject(path:method:parameters:)` sends it.
    private struct Object<Model: Decodable>: RetryableRequest {
        typealias Response = Model
        let path: String
        var baseURL: URL?
        var method: HTTPMethod = .get
        var parameters: [String: Any?] = [:]
        var requiresAuthentication: Bool { false }
        var retryPolicy: RetryPolicy { .none }
    }

    /// The outcome as a short label: the error code, or "ok" for the expected success.
    private static func label<T>(_ result: Result<T, Error>?, expected: Set<String>) -> String {
        let text: String
        switch result {
        case .success?: text = "ok"
        case .failure(let error as HTTPClientError)?: text = error.code.rawValue
        case .failure(let error)?: text = "untyped \(type(of: error))"
        case nil: text = "no answer"
        }
        return expected.contains(text) ? text : "UNEXPECTED \(text)"
    }

    private static func wait<T>(_ single: Single<T>, timeout: TimeInterval = 5) -> Result<T, Error>? {
        let done = DispatchSemaphore(value: 0)
        let box = ResultSlot<T>()
        let subscription = single.subscribe(onSuccess: { box.set(.success($0)); done.signal() },
                                            onFailure: { box.set(.failure($0)); done.signal() })
        _ = done.wait(timeout: .now() + timeout)
        subscription.dispose()
        return box.value
    }

    private static func text(_ path: String, _ expected: Set<String>, timeout: TimeInterval? = nil, headers: [String: String] = [:]) -> Case {
        Case(name: path) { client, target in
            label(wait(client.rx.request(Text(path: path, baseURL: target.baseURL, timeout: timeout, headers: headers))), expected: expected)
        }
    }

    static func everyCase() -> [Case] {
        var deep: Any = 1
        for _ in 0..<10_000 { deep = [deep] }
        let nested = deep
        let closure: () -> Void = {}
        return [
            text("/bomb", ["responseTooLarge"]),
            text("/big", ["responseTooLarge"]),
            text("/dup-length", ["invalidResponse"]),
            text("/length-and-chunked", ["invalidResponse"]),
            text("/absurd-length", ["invalidResponse"]),
            text("/truncated", ["transport"]),
            text("/garbage", ["invalidResponse"]),
            text("/http09", ["invalidResponse"]),
            text("/302-no-location", ["unacceptableStatusCode"]),
            text("/to-file", ["redirectRefused"]),
            text("/to-data", ["redirectRefused"]),
            Case(name: "/cross-origin (Authorization)") { client, target in
                let result = wait(client.rx.request(Text(path: "/cross-origin", baseURL: target.baseURL, headers: ["Authorization": "Bearer soak"])))
                if case .success("LEAKED")? = result { return "UNEXPECTED credential leaked" }
                return label(result, expected: ["ok"])
            },
            text("/loop", ["redirectRefused"]),
            text("/drop", ["transport"]),
            text("/trickle", ["timedOut"], timeout: 0.3),
            text("/basic-401", ["unacceptableStatusCode"]),
            Case(name: "/html as JSON") { client, target in
                label(wait(client.rx.request(Object<User>(path: "/html", baseURL: target.baseURL))), expected: ["decodeError"])
            },
            Case(name: "/not-utf8 as JSON") { client, target in
                label(wait(client.rx.request(Object<User>(path: "/not-utf8", baseURL: target.baseURL))), expected: ["decodeError"])
            },
            Case(name: "/empty as JSON") { client, target in
                label(wait(client.rx.request(Object<User>(path: "/empty", baseURL: target.baseURL))), expected: ["decodeError"])
            },
            Case(name: "drop on accept") { client, target in
                target.dropConnectionsOnAccept(1)
                defer { target.dropConnectionsOnAccept(0) }
                return label(wait(client.rx.request(Text(path: "/ok", baseURL: target.baseURL))), expected: ["transport", "ok"])
            },
            Case(name: "10,000-deep parameters") { client, target in
                label(wait(client.rx.request(Object<User>(path: "/ok", baseURL: target.baseURL, parameters: ["deep": nested]))),
                      expected: ["invalidRequest"])
            },
            Case(name: "NaN and closure parameters") { client, target in
                label(wait(client.rx.request(Object<User>(path: "/ok", baseURL: target.baseURL, method: .post, parameters: ["x": Double.nan, "f": closure]))),
                      expected: ["invalidRequest"])
            },
            text("/ok/../../etc/passwd", ["invalidRequest"]),
            text("/ok", ["invalidRequest"], headers: ["X-Evil": "a\r\nInjected: 1"]),
            text("/ok", ["invalidRequest"], timeout: .nan),
            Case(name: "/ok timeout 1e300") { client, target in
                label(wait(client.rx.request(Text(path: "/ok", baseURL: target.baseURL, timeout: 1e300))), expected: ["ok"])
            },
            Case(name: "dispose mid-redirect") { client, target in
                for _ in 0..<10 {
                    client.rx.request(Text(path: "/loop", baseURL: target.baseURL)).subscribe(onSuccess: { _ in }, onFailure: { _ in }).dispose()
                }
                return "ok"
            },
            Case(name: "dispose mid-bomb") { client, target in
                let subscription = client.rx.request(Text(path: "/bomb", baseURL: target.baseURL)).subscribe(onSuccess: { _ in }, onFailure: { _ in })
                Thread.sleep(forTimeInterval: 0.005)
                let start = DispatchTime.now().uptimeNanoseconds
                subscription.dispose()
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                return elapsed <= 50 ? "ok" : "UNEXPECTED dispose took \(Int(elapsed)) ms"
            },
            Case(name: "300 disposed 0–3 ms after start") { client, target in
                // A daemon's cancels (a time-out, a flatMapLatest, a user): some calls in flight,
                // some answered at the same moment, some mid-redirect (/cross-origin hops hosts).
                for index in 0..<300 {
                    let path = index % 3 == 2 ? "/cross-origin" : "/ok"
                    let subscription = client.rx.request(Text(path: path, baseURL: target.baseURL)).subscribe(onSuccess: { _ in }, onFailure: { _ in })
                    usleep(UInt32((index % 4) * 1_000))
                    subscription.dispose()
                }
                return "ok"
            },
            Case(name: "dispose while slow") { client, target in
                let subscription = client.rx.request(Text(path: "/slow", baseURL: target.baseURL)).subscribe(onSuccess: { _ in }, onFailure: { _ in })
                Thread.sleep(forTimeInterval: 0.01)
                subscription.dispose()
                return "ok"
            },
        ]
    }
}

/// One result written by a callback thread and read by the waiting one.
// @unchecked Sendable: `stored` is only touched under `lock`.
private final class ResultSlot<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Result<T, Error>?

    func set(_ result: Result<T, Error>) {
        lock.withLock { stored = result }
    }

    var value: Result<T, Error>? {
        lock.withLock { stored }
    }
}

/// Where the hostile cases send their requests, and the one thing a case asks the server to do
/// (close the next accepted connections before reading them).
protocol HostileTarget: Sendable {
    var baseURL: URL { get }
    func dropConnectionsOnAccept(_ count: Int)
}

extension LoopbackHTTPServer: HostileTarget {}
