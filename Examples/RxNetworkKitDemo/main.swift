import Foundation
import Synchronization
import RxNetworkKit
import RxTesting

// A walk through RxNetworkKit against embedded HTTP servers on 127.0.0.1 (no internet needed).
// Each step prints what it did with a timing or a count. `--verbose` logs every header too.
// SIGINT/SIGTERM shut the client down gracefully and exit 0.

struct User: Decodable, CustomStringConvertible {
    let id: Int
    let name: String
    var description: String { "\(name) (#\(id))" }
}

struct GetUser: Request {
    typealias Response = User
    let id: Int
    var path: String { "/users/\(id)" }
}

/// A POST that may be retried because the server deduplicates by `Idempotency-Key`.
struct CreateOrder: RetryableRequest {
    typealias Response = String
    var path: String { "/orders" }
    var method: HTTPMethod { .post }
    var body: any RequestBody { .jsonObject(["sku": "rx-1", "quantity": 1]) }
    var idempotency: Idempotency { .keyed }
    var retryPolicy: RetryPolicy { RetryPolicy(maxAttempts: 3, delay: .constant(time: 0.1)) }
}

/// A GET the cache may answer (step 15).
struct Polled: Request {
    typealias Response = User
    let path: String
}

struct Text: Request {
    typealias Response = String
    let path: String
    var headers: [String: String] = [:]
}

// Started again as a replica of step 19's fleet.
if CommandLine.arguments.dropFirst().first == "fleet-replica" {
    exit(runFleetReplica(Array(CommandLine.arguments.dropFirst(2))))
}
if CommandLine.arguments.dropFirst().first == "outbox-child" {
    exit(runOutboxChild(Array(CommandLine.arguments.dropFirst(2))))
}

let verbose = CommandLine.arguments.contains("--verbose")
let server = LoopbackHTTPServer()
let elsewhere = LoopbackHTTPServer()
do {
    try server.start()
    try elsewhere.start()
} catch {
    print("could not start the embedded servers: \(error)")
    exit(1)
}
server.route(.get, "/users/42", .json(#"{"id":42,"name":"Ada"}"#))
server.route(.get, "/users/43", LoopbackHTTPResponse.json(#"{"id":43,"name":"Grace"}"#).delayed(by: 0.05))
server.route(.get, "/users/44", LoopbackHTTPResponse.json(#"{"id":44,"name":"Barbara"}"#).delayed(by: 0.05))
server.route(.get, "/feed", .json(#"{"id":1,"name":"front page"}"#))

let logLines = LockedLines()
let client = HTTPClient(
    baseURL: server.baseURL,
    configuration: .init(timeout: 5, retryPolicy: RetryPolicy(maxAttempts: 4, delay: .constant(time: 30), deadline: 60)),
    plugins: [NetworkLoggerPlugin(logsHeaders: verbose) { line in
        logLines.append(line)
        if verbose { print("  log: \(line)") }
    }]
)
let bag = DisposeBag()

// Shut down gracefully on SIGINT/SIGTERM: refuse new work, let in-flight requests finish, exit 0.
// One call, no handler of our own (a top-level closure here would be main-actor code).
let termination = HTTPClient.shutdownOnTermination([client], gracePeriod: 5, log: { print("\n" + $0) })

/// Waits for a Single on this thread (the demo's main thread has nothing else to do).
func outcome<T>(of single: Single<T>, timeout: TimeInterval = 10) -> Result<T, Error> {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var outcome: Result<T, Error> = .failure(RxError.timeout)
    single.subscribe(
        onSuccess: { outcome = .success($0); done.signal() },
        onFailure: { outcome = .failure($0); done.signal() }
    )
    .disposed(by: bag)
    _ = done.wait(timeout: .now() + timeout)
    return outcome
}

/// Runs `body` and returns its result with the elapsed milliseconds.
func timed<T>(_ body: () -> T) -> (T, Double) {
    let start = DispatchTime.now().uptimeNanoseconds
    let value = body()
    return (value, Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
}

func describe<T>(_ result: Result<T, Error>) -> String {
    switch result {
    case .success(let value): return "\(value)"
    case .failure(let error as HTTPClientError): return "\(error.code) (\(error.message ?? ""))"
    case .failure(let error): return "\(error)"
    }
}

func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }

/// Sends `count` requests, `inFlight` at a time, and returns how many were decoded.
func decodedCount(of count: Int, inFlight: Int, over client: HTTPClient) -> Int {
    let slots = DispatchSemaphore(value: inFlight)
    let group = DispatchGroup()
    let successes = LockedLines()
    for _ in 0..<count {
        slots.wait()
        group.enter()
        _ = client.rx.request(GetUser(id: 42)).subscribe(
            onSuccess: { _ in successes.append("ok"); slots.signal(); group.leave() },
            onFailure: { _ in slots.signal(); group.leave() }
        )
    }
    group.wait()
    return successes.lines.count
}

print("RxNetworkKit demo — embedded servers on \(server.baseURL.absoluteString) and \(elsewhere.baseURL.absoluteString)\n")

print("1. one request, decoded")
let (first, firstTime) = timed { outcome(of: client.rx.request(GetUser(id: 42))) }
print("   \(describe(first)) in \(ms(firstTime))")

print("2. three requests in parallel, zipped")
let alone = [42, 43, 44].map { id in timed { outcome(of: client.rx.request(GetUser(id: id))) }.1 }
let (zipped, zipTime) = timed {
    outcome(of: Single.zip(client.rx.request(GetUser(id: 42)), client.rx.request(GetUser(id: 43)), client.rx.request(GetUser(id: 44))))
}
print("   \(describe(zipped)) in \(ms(zipTime)) (one after another: \(ms(alone.reduce(0, +))))")

print("3. the server goes down; a request waits to retry (30 s delay) and is sent again when it is back")
let retries = LockedLines()
let recovering = HTTPClient(
    baseURL: server.baseURL,
    // Default reachability settings: probes only while a request waits, every 0.5 s while the host is down.
    configuration: .init(timeout: 5, retryPolicy: RetryPolicy(
        maxAttempts: 4, delay: .constant(time: 30),
        onRetry: { retries.append("attempt \($0.attempt) after \($0.error.code), ended by \($0.trigger.rawValue)") }
    ))
)
server.stop()
let outageStart = Date()
nonisolated(unsafe) var backAt = Date.distantFuture
DispatchQueue.global().asyncAfter(deadline: .now() + 0.6) {
    try? server.start()
    backAt = Date()
}
let recovered = outcome(of: recovering.rx.requestObject(path: "/feed") as Single<User>)
let recoveredAt = Date()
print("   \(describe(recovered)): outage \(String(format: "%.0f", backAt.timeIntervalSince(outageStart) * 1000)) ms, "
      + "recovered \(String(format: "%.0f", recoveredAt.timeIntervalSince(backAt) * 1000)) ms after the server came back "
      + "(\(retries.lines.last?.components(separatedBy: "ended by ").last ?? "no retry"))")

print("4. a keyed POST survives a dropped connection without creating two orders")
let orders = LockedLines()
server.route(.post, "/orders") { request in
    let key = request.header(Idempotency.keyHeader) ?? "none"
    if orders.lines.isEmpty {
        orders.append(key)
        return .dropConnection        // the server saw it, the client gets no answer
    }
    orders.append(key)
    return .text("order created")
}
let (order, orderTime) = timed { outcome(of: client.rx.request(CreateOrder())) }
let keys = orders.lines
print("   \(describe(order)) in \(ms(orderTime)): \(keys.count) attempts, Idempotency-Key \(keys.first.map { String($0.prefix(8)) + "…" } ?? "-") "
      + "\(Set(keys).count == 1 ? "the same on both" : "CHANGED")")

print("5. async/await, on the client itself: try await client.send(GetUser(id: 42))")
let (asyncUser, asyncTime): (String, Double) = await {
    let start = DispatchTime.now().uptimeNanoseconds
    let text: String
    do {
        let user = try await client.send(GetUser(id: 42))
        text = "\(user)"
    } catch {
        text = "failed: \(error)"
    }
    return (text, Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
}()
print("   \(asyncUser) in \(ms(asyncTime))")

print("6. bad input is a typed error, never a crash")
server.route(.get, "/html", .text("<html>oops</html>").withHeader("Content-Type", "text/html; charset=utf-8"))
var deep: Any = 1
for _ in 0..<10_000 { deep = [deep] }
let (nested, nestedTime) = timed { outcome(of: client.rx.requestObject(path: "/users/42", parameters: ["deep": deep]) as Single<User>) }
print("   CR/LF in a header   -> \(describe(outcome(of: client.rx.requestObject(path: "/users/42", headers: ["X-Evil": "a\r\nInjected: 1"]) as Single<User>)))")
print("   HTML for JSON       -> \(describe(outcome(of: client.rx.requestObject(path: "/html") as Single<User>)))")
print("   10,000-deep params  -> \(describe(nested)) in \(ms(nestedTime))")
print("   ../ in a path       -> \(describe(outcome(of: client.rx.request(Text(path: "/users/../../etc/passwd")))))")

print("7. a hostile server is contained")
let guarded = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, maxResponseBodySize: 4 << 20))
server.route(.get, "/bomb", .gzipBomb(inflatedSize: 256 << 20))
let (bomb, bombTime) = timed { outcome(of: guarded.rx.request(Text(path: "/bomb"))) }
print("   gzip bomb (1.7 MB on the wire, 256 MiB inflated, limit 4 MiB) -> \(describe(bomb)) after \(ms(bombTime))")
elsewhere.route(.get, "/landing", .text("landed"))
server.route(.get, "/jump", LoopbackHTTPResponse.status(302).withHeader("Location", elsewhere.url("/landing").absoluteString))
_ = outcome(of: client.rx.request(Text(path: "/jump", headers: ["Authorization": "Bearer demo-secret"])))
let carried = elsewhere.requests.last?.header("Authorization")
print("   redirect to another origin -> Authorization \(carried == nil ? "dropped" : "LEAKED: \(carried ?? "")")")
server.route(.get, "/evil", LoopbackHTTPResponse.status(302).withHeader("Location", "file:///etc/passwd"))
print("   redirect to file:///etc/passwd -> \(describe(outcome(of: client.rx.request(Text(path: "/evil")))))")

print("8. secrets never reach the log")
logLines.removeAll()
_ = outcome(of: client.rx.request(Text(path: "/users/42?access_token=demo-token", headers: ["Authorization": "Bearer demo-secret"])))
let logged = logLines.lines.joined(separator: "\n")
print("   \(logLines.lines.first ?? "(no line)")")
print("   token or bearer in the log: \(logged.contains("demo-token") || logged.contains("demo-secret") ? "LEAKED" : "none")")

print("9. an access token expires mid-run: one refresh while three requests wait")
let tokenState = LockedLines()
tokenState.append("access-1")
server.route(.post, "/oauth/token") { request in
    tokenState.append("access-2")
    let rotated = (request.bodyString ?? "").contains("refresh_token=refresh-1")
    return rotated ? LoopbackHTTPResponse.json(#"{"access_token":"access-2","token_type":"bearer","expires_in":3600,"refresh_token":"refresh-2"}"#).delayed(by: 0.1)
        : .json(#"{"error":"invalid_grant"}"#, status: 400)
}
server.route(.get, "/api/*") { request in
    request.header("Authorization") == "Bearer \(tokenState.lines.last ?? "")" ? .json(#"{"id":7,"name":"secret report"}"#) : .status(401)
}
let stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnetworkkit-demo-\(getpid())")
let auth = OAuthAuthenticator(
    store: FileCredentialStore(url: stateDirectory.appendingPathComponent("token.json")),
    refresher: .tokenEndpoint(server.url("/oauth/token"), clientID: "demo", clientSecret: "demo-client-secret"))
try? auth.update(OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1"))
let authenticated = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5), authenticator: auth)
_ = outcome(of: authenticated.rx.requestObject(path: "/api/reports/0") as Single<User>)
tokenState.append("access-1 revoked")   // the server now refuses access-1: it has expired
let (reports, reportsTime) = timed {
    outcome(of: Single.zip((1...3).map { authenticated.rx.requestObject(path: "/api/reports/\($0)") as Single<User> }))
}
let tokenCalls = server.requests(to: "/oauth/token").count
print("   \(describe(reports).prefix(60))… in \(ms(reportsTime)): \(tokenCalls) token call on the server, "
      + "\(auth.refreshCount) refresh; rotated refresh token stored (mode 0600) at \(stateDirectory.lastPathComponent)/token.json")
try? FileManager.default.removeItem(at: stateDirectory)

print("10. a 429 storm absorbed: twenty callers, one cooldown for the whole host")
let storm = LockedLines()
server.route(.get, "/rates") { _ in
    storm.append("hit")
    return storm.lines.count == 1 ? LoopbackHTTPResponse.status(429).withHeader("Retry-After", "1") : .json(#"{"id":1,"name":"rate"}"#)
}
let polite = HTTPClient(baseURL: server.baseURL, configuration: .init(
    timeout: 5, retryPolicy: RetryPolicy(maxAttempts: 5, delay: .constant(time: 0.05), retriesWhenReachable: false)))
let (rates, ratesTime) = timed {
    // The first caller meets the 429; nineteen more arrive while the host cools down.
    let first = LockedLines()
    polite.rx.requestObject(path: "/rates").subscribe(onSuccess: { (_: User) in first.append("ok") }, onFailure: { _ in first.append("failed") })
        .disposed(by: bag)
    usleep(100_000)
    let others = outcome(of: Single.zip((1..<20).map { _ in polite.rx.requestObject(path: "/rates") as Single<User> }))
    while first.lines.isEmpty { usleep(1_000) }
    return ((try? others.get())?.count ?? 0) + first.lines.filter { $0 == "ok" }.count
}
print("   \(rates) of 20 callers succeeded in \(ms(ratesTime)); the server saw \(storm.lines.count) requests: one 429 "
      + "(Retry-After: 1), then nothing until the host's cooldown ended, then one each")

print("11. a Server-Sent Events stream survives two dropped connections")
let eventConnections = LockedLines()
server.route(.get, "/events") { request in
    eventConnections.append(request.header("Last-Event-ID") ?? "none")
    switch eventConnections.lines.count {
    case 1: return .eventStream([.text("id: 1\ndata: price 100\n\nid: 2\ndata: price 101\n\n"), .pause(0.05), .drop])
    case 2: return .eventStream([.text("retry: 100\nid: 3\ndata: price 99\n\n"), .pause(0.05), .drop])
    default: return .eventStream([.text("id: 4\ndata: price 102\n\n"), .pause(5)])
    }
}
let prices = LockedLines()
let (streamed, streamTime) = timed { () -> Int in
    let subscription = client.rx.serverSentEvents(path: "/events", reconnect: ReconnectPolicy(delay: .constant(time: 0.1)))
        .subscribe(onNext: { prices.append("#\($0.id ?? "-") \($0.data)") })
    while prices.lines.count < 4 && eventConnections.lines.count < 10 { usleep(5_000) }
    subscription.dispose()
    return prices.lines.count
}
print("   \(streamed) events in \(ms(streamTime)) over \(eventConnections.lines.count) connections (Last-Event-ID sent: "
      + "\(eventConnections.lines.joined(separator: ", "))): \(prices.lines.joined(separator: ", "))")

print("12. the transport is pluggable: 1,000 requests, 16 in flight, over the default URLSessionTransport")
let throughputClient = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5))
let (completed, batchTime) = timed { decodedCount(of: 1_000, inFlight: 16, over: throughputClient) }
// A response that sets three cookies: each transport's HTTPHeaders, read with values(for:).
server.route(.get, "/cookies", LoopbackHTTPResponse(
    status: 200, headers: LoopbackHTTPHeaders([("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"), ("Set-Cookie", "c=3")]), body: Data("ok".utf8)))
let cookieLines = (try? outcome(of: throughputClient.rx.response(Text(path: "/cookies"))).get())?.headers.values(for: "Set-Cookie").count ?? 0
_ = outcome(of: throughputClient.shutdown(gracePeriod: 1).andThen(Single.just(())))
print("   \(completed) decoded in \(ms(batchTime)) (\(String(format: "%.0f", Double(completed) / batchTime * 1000)) req/s); "
      + "3 Set-Cookie lines arrive as \(cookieLines) (Foundation combines a repeated field)")
print("   \(fastTransportStep(baseURL: server.baseURL, urlSessionTime: batchTime))")

print("13. RxSwift's vocabulary: a BehaviorRelay setting, withLatestFrom, a Maybe cache in front of the network; zip of 8, range, bind(to:) a ReplayRelay")
let (vocabulary, vocabularyTime) = timed { () -> String in
    let region = BehaviorRelay(value: "eu")
    let ticks = PublishRelay<Int>()
    let tagged = LockedLines()
    let tagging = ticks.withLatestFrom(region) { tick, region in "\(region) \(tick)" }
        .subscribe(onNext: { tagged.append($0) })
    for tick in 0..<1_000 {
        if tick == 600 { region.accept("us") }
        ticks.accept(tick)
    }
    tagging.dispose()
    let cache = BehaviorRelay<User?>(value: nil)
    func cachedUser() -> Single<User> {
        Maybe.just(cache.value).compactMap { $0 }
            .ifEmpty(switchTo: client.rx.request(GetUser(id: 42)).do(onSuccess: { cache.accept($0) }))
    }
    let miss = outcome(of: cachedUser())
    let (hit, hitTime) = timed { outcome(of: cachedUser()) }
    let regions = Dictionary(grouping: tagged.lines) { String($0.prefix(2)) }.mapValues(\.count)
    return "\(tagged.lines.count) events tagged (eu \(regions["eu"] ?? 0), us \(regions["us"] ?? 0)); "
        + "cache miss -> \(describe(miss)), then hit -> \(describe(hit)) in \(ms(hitTime)) (no request)"
}
print("   \(vocabulary); \(ms(vocabularyTime)) in all")
let (moreVocabulary, moreVocabularyTime) = timed { () -> String in
    let user = client.rx.request(GetUser(id: 42))
    let eight = Single.zip(user, user, user, user, user, user, user, user) { a, b, c, d, e, f, g, h in
        [a, b, c, d, e, f, g, h].map(\.id).reduce(0, +)
    }
    let recent = ReplayRelay<Int>.create(bufferSize: 3)
    let binding = Observable.range(start: 1, count: 1_000).bind(to: recent)
    let replayed = LockedLines()
    recent.subscribe(onNext: { replayed.append("\($0)") }).dispose()
    binding.dispose()
    return "Single.zip of 8 requests -> ids summed to \(describe(outcome(of: eight))); "
        + "range(start: 1, count: 1000) bound to a ReplayRelay(bufferSize: 3), which replays \(replayed.lines.joined(separator: ", "))"
}
print("   \(moreVocabulary); \(ms(moreVocabularyTime))")

print("14. one seam for every concern: an interceptor signs each attempt (the client's own HTTPTransportRequest) and answers /health without the network; a plugin is the chain's innermost interceptor, and a request that cannot be built is a call like any other")
let (seam, seamTime) = timed { () -> String in
    server.route(.get, "/signed") { request in .text(request.header("X-Signature") ?? "unsigned") }
    let plugin = DemoCountingPlugin()
    let sealed = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, interceptors: [DemoSigner()]), plugins: [plugin])
    let before = server.requests.count
    var signatures = Set<String>()
    for _ in 0..<50 {
        if case .success(let signature) = outcome(of: sealed.rx.request(Text(path: "/signed"))) { signatures.insert(signature) }
    }
    let health = (0..<50).filter { _ in (try? outcome(of: sealed.rx.request(Text(path: "/health"))).get()) == "ok" }.count
    let events = LockedLines()
    let watching = sealed.events.subscribe(onNext: { events.append("\($0.kind)") })
    let refused = outcome(of: sealed.rx.request(Text(path: "/signed", headers: ["Bad Name": "x"])))
    watching.dispose()
    var refusal = "delivered"
    if case .failure(let error as HTTPClientError) = refused { refusal = error.code.rawValue }
    refusal += " with \(events.lines.count) events"
    let sent = server.requests.count - before
    _ = outcome(of: sealed.shutdown(gracePeriod: 1).andThen(Single.just(())))
    return "50 signed (\(signatures.sorted().joined(separator: ", "))), \(health) /health answered locally; \(sent) requests reached the server; "
        + "a bad header: \(refusal); the plugin saw \(plugin.sends) sends and \(plugin.finished) calls end"
}
print("   \(seam) in \(ms(seamTime))")

print("15. spending less of the API: a poll loop turns into cache hits and 304s; 50 identical calls share one request")
let (quota, quotaTime) = timed { () -> String in
    server.route(.get, "/config", LoopbackHTTPResponse.json(#"{"id":1,"name":"config"}"#).withHeader("Cache-Control", "max-age=60"))
    server.route(.get, "/prices") { request in
        request.header("If-None-Match") == "\"p7\""
            ? LoopbackHTTPResponse.status(304).withHeader("ETag", "\"p7\"")
            : LoopbackHTTPResponse.json(#"{"id":7,"name":"prices"}"#).withHeader("ETag", "\"p7\"").withHeader("Cache-Control", "max-age=0")
    }
    server.route(.get, "/popular", LoopbackHTTPResponse.json(#"{"id":9,"name":"popular"}"#).delayed(by: 0.1))
    let cache = HTTPCache(directory: nil)
    let saving = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, cache: cache, coalescing: true))
    var sources: [CacheStatus: Int] = [:]
    for path in ["/config", "/prices"] {
        for _ in 0..<50 {
            if case .success(let answer) = outcome(of: saving.rx.response(Polled(path: path))) { sources[answer.cacheStatus, default: 0] += 1 }
        }
    }
    let sentForPolls = server.requests(to: "/config").count + server.requests(to: "/prices").count
    let shared = DispatchGroup()
    let answers = LockedLines()
    let calls = (0..<50).map { _ -> Disposable in
        shared.enter()
        return saving.rx.request(Polled(path: "/popular")).subscribe(
            onSuccess: { _ in answers.append("ok"); shared.leave() }, onFailure: { _ in shared.leave() })
    }
    _ = shared.wait(timeout: .now() + 5)
    calls.forEach { $0.dispose() }
    _ = outcome(of: saving.shutdown(gracePeriod: 1).andThen(Single.just(())))
    return "100 polls: \(sources[.hit] ?? 0) cache hits, \(sources[.revalidated] ?? 0) answered by a 304, \(sources[.network] ?? 0) from the network "
        + "(\(sentForPolls) requests sent); 50 identical calls at once: \(answers.lines.count) answers, "
        + "\(server.requests(to: "/popular").count) request"
}
print("   \(quota) in \(ms(quotaTime))")

print("16. the server-Swift conventions: swift-log, swift-metrics, swift-distributed-tracing, swift-service-lifecycle")
for line in serverSwiftStep(server: server) {
    print("   \(line)")
}

print("17. a WebSocket that outlives its connection: pushed messages, a drop, a reconnect, echoes")
for line in webSocketStep(server: server) {
    print("   \(line)")
}

print("18. fault injection: 200 calls through a seeded 20% 503 storm, 5% dropped answers and 10% latency")
let injectedRequests = LockedLines()
server.route(.get, "/quotes/*") { request in
    injectedRequests.append(request.path)
    return .json(#"{"id":1,"name":"quote"}"#)
}
let faults = FaultInjection(wrapping: URLSessionTransport(), rules: [
    FaultRule(.status(503, retryAfter: 0), rate: 0.2),
    FaultRule(.dropAfterSending, rate: 0.05),
    FaultRule(.latency(0.02), rate: 0.1),
], seed: 2026)
var faultPolicy = RetryPolicy(maxAttempts: 5, delay: .constant(time: 0.005))
faultPolicy.retriesWhenReachable = false
let faulty = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, retryPolicy: faultPolicy), transport: faults)
let (survived, faultTime) = timed { () -> Int in
    (0..<200).filter { index in
        (try? outcome(of: faulty.rx.request(Text(path: "/quotes/\(index)"))).get()) != nil
    }.count
}
_ = outcome(of: faulty.shutdown(gracePeriod: 1).andThen(Single.just(())))
let injected = faults.counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
print("   \(survived) of 200 answered in \(ms(faultTime)) after \(faults.requestCount) attempts; injected: \(injected); "
      + "the server saw \(injectedRequests.lines.count) requests (a 503 never reaches it, a dropped answer does)")

print("19. a fleet of three replicas (child processes): one refresh per token expiry, one quota")
for line in fleetStep(server: server) {
    print("   \(line)")
}

print("20. large bodies: a download cut twice resumes with Range/If-Range; an upload streams from its file")
for line in transferStep(server: server) {
    print("   \(line)")
}

print("21. writes that survive a crash: an Outbox in a child process killed with SIGKILL mid-delivery, then restarted")
for line in outboxStep(server: server) {
    print("   \(line)")
}

print("22. graceful shutdown on a signal")
server.route(.get, "/slow", LoopbackHTTPResponse.text("finished").delayed(by: 0.2))
server.route(.get, "/unavailable", .status(503))
let finishedInFlight = LockedLines()
for index in 0..<3 {
    client.rx.request(Text(path: "/slow?n=\(index)"))
        .subscribe(onSuccess: { finishedInFlight.append("ok \($0)") }, onFailure: { finishedInFlight.append("failed \($0)") })
        .disposed(by: bag)
}
client.rx.request(Text(path: "/unavailable"))
    .subscribe(onSuccess: { _ in }, onFailure: { finishedInFlight.append("waiting: \(($0 as? HTTPClientError)?.code.rawValue ?? "?")") })
    .disposed(by: bag)
usleep(50_000)
// Drained by a real signal through `shutdownOnTermination`, as SIGTERM drains the demo (SIGUSR1
// here, so that the demo goes on to print what happened instead of exiting).
let drainedBySignal = DispatchSemaphore(value: 0)
let bySignal = HTTPClient.shutdownOnTermination([client], gracePeriod: 5, signals: [SIGUSR1], exitCode: nil, then: { drainedBySignal.signal() })
let (_, shutdownTime) = timed {
    kill(getpid(), SIGUSR1)
    _ = drainedBySignal.wait(timeout: .now() + 10)
}
bySignal.dispose()
let afterwards = outcome(of: client.rx.request(GetUser(id: 42)))
let summary = finishedInFlight.lines
print("   \(summary.filter { $0.hasPrefix("ok") }.count) in flight finished, \(summary.filter { $0.hasPrefix("waiting") }.count) waiting retry stopped "
      + "(\(summary.first { $0.hasPrefix("waiting") }?.dropFirst(9) ?? "")), drained by a signal (HTTPClient.shutdownOnTermination) in \(ms(shutdownTime)); "
      + "a new request -> \(describe(afterwards))")

server.stop()
elsewhere.stop()
_ = termination
print("\ndone")

/// Signs every attempt and answers `/health` itself (step 14): what an `HTTPInterceptor` can do.
struct DemoSigner: HTTPInterceptor {
    func prepare(_ request: HTTPTransportRequest, for call: HTTPCall,
                 completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void) -> Disposable? {
        if call.url?.path == "/health" {
            completion(.answer(HTTPResponse(statusCode: 200, headers: [:], body: Data("ok".utf8), url: call.url)))
        } else {
            var signed = request
            signed.setValue("sig-v1", forHTTPHeaderField: "X-Signature")
            completion(.proceed(signed))
        }
        return nil
    }
}

/// Counts what a plugin hears: sends (`willSend`) and calls that ended (`didFinish`).
final class DemoCountingPlugin: HTTPPlugin {
    private let counts = Mutex<(sends: Int, finished: Int)>((0, 0))
    var sends: Int { counts.withLock { $0.sends } }
    var finished: Int { counts.withLock { $0.finished } }
    func willSend(_ request: URLRequest, info: HTTPRequestInfo) { counts.withLock { $0.sends += 1 } }
    func didFinish(_ summary: HTTPCallSummary, info: HTTPRequestInfo) { counts.withLock { $0.finished += 1 } }
}

/// `print`, flushed: each line shows at once, also when the output is a pipe or a file (a CI log,
/// `| tee`), where the C library would otherwise hold it back until the end.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Swift.print(items.map { "\($0)" }.joined(separator: separator), terminator: terminator)
    fflush(nil)
}

/// Lines collected from any thread.
// @unchecked Sendable: `storage` is only touched under `lock`.
final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ line: String) { lock.withLock { storage.append(line) } }
    func removeAll() { lock.withLock { storage.removeAll() } }
    var lines: [String] { lock.withLock { storage } }
}
