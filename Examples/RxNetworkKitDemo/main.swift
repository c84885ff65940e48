import Foundation
import RxNetworkKit
import RxTesting

// A walk through RxNetworkKit against an embedded HTTP server on 127.0.0.1 (no internet needed):
// decoding, parallel requests, retry when the network comes back, async/await, and a logger that
// keeps secrets out of its output.

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

let server = LoopbackHTTPServer()
do {
    try server.start()
} catch {
    print("could not start the embedded server: \(error)")
    exit(1)
}
server.route(.get, "/users/42", .json(#"{"id":42,"name":"Ada"}"#))
server.route(.get, "/users/43", .json(#"{"id":43,"name":"Grace"}"#))
server.route(.get, "/users/44", .json(#"{"id":44,"name":"Barbara"}"#))
server.route(.get, "/feed", .json(#"{"id":1,"name":"front page"}"#))

let client = HTTPClient(
    baseURL: server.baseURL,
    configuration: .init(timeout: 5, reachabilityProbeInterval: 0.2, reachabilityTimeout: 0.5),
    plugins: [NetworkLoggerPlugin { line in print("  log: \(line)") }]
)
let bag = DisposeBag()

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

print("1. one request, decoded")
print("   ->", outcome(of: client.rx.requestObject(path: "/users/42") as Single<User>))

print("2. three requests in parallel, zipped")
let zipped = Single.zip(
    client.rx.request(GetUser(id: 42)),
    client.rx.request(GetUser(id: 43)),
    client.rx.request(GetUser(id: 44))
)
print("   ->", outcome(of: zipped))

print("3. the server goes down; the request waits (30 s retry delay) and retries as soon as it is back")
server.stop()
let started = Date()
DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
    try? server.start()
    print("   (server back after \(String(format: "%.1f", Date().timeIntervalSince(started))) s)")
}
guard let reachability = client.reachability else {
    print("the client has no base URL to watch")
    exit(1)
}
let feed = (client.rx.requestObject(path: "/feed") as Single<User>)
    .asObservable()
    .retry(3, delay: .exponential(initial: 30, multiplier: 2, maxDelay: 60),
           didBecomeReachable: reachability.didBecomeReachable,
           shouldRetry: { $0.isTransient })
    .asSingle()
let recovered = outcome(of: feed)
print("   -> \(recovered) after \(String(format: "%.2f", Date().timeIntervalSince(started))) s")

print("4. async/await")
do {
    let user: User = try await client.rx.requestObject(path: "/users/43").value
    print("   ->", user)
} catch {
    print("   -> failed:", error)
}

print("5. bad input is a typed error, never a crash")
print("   ->", outcome(of: client.rx.requestObject(path: "/users/42", headers: ["X-Evil": "a\r\nInjected: 1"]) as Single<User>))
server.route(.get, "/html", .text("<html>oops</html>"))
print("   ->", outcome(of: client.rx.requestObject(path: "/html") as Single<User>))

server.stop()
print("done")
