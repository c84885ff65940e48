import Foundation
import RxNetworkKit
import RxTesting
import XCTest

/// The API block of DESIGN.md, spelled as written there, against a real server on 127.0.0.1.
final class DesignContractTests: RxTestCase {
    struct User: Decodable, Equatable {
        let id: Int
        let name: String
    }

    struct GetUser: Request {
        typealias Response = User
        let id: Int
        var path: String { "/users/\(id)" }
    }

    private let server = LoopbackHTTPServer()

    override func setUpWithError() throws {
        try super.setUpWithError()
        try server.start()
        for id in 40...44 {
            server.route(.get, "/users/\(id)", .json(#"{"id":\#(id),"name":"user \#(id)"}"#))
        }
    }

    override func tearDown() {
        server.stop()
        super.tearDown()
    }

    func testOneRequestDecodedWithSubscribeOnSuccessAndDisposeBag() throws {
        let client = HTTPClient(baseURL: try XCTUnwrap(URL(string: server.baseURL.absoluteString)))
        let done = expectation(description: "success")
        let received = LockedUser()
        var bag: DisposeBag? = DisposeBag()
        if let bag {
            client.rx.requestObject(path: "/users/42")
                .subscribe(onSuccess: { (user: User) in received.set(user); done.fulfill() },
                           onFailure: { error in XCTFail("\(error)") })
                .disposed(by: bag)
        }
        wait(for: [done], timeout: 5)
        bag = nil
        XCTAssertEqual(received.value, User(id: 42, name: "user 42"))
    }

    func testHostInitializerZipsAndCollectionZip() throws {
        let client = HTTPClient(host: server.baseURL.absoluteString)
        let a: Single<User> = client.rx.requestObject(path: "/users/40")
        let b: Single<User> = client.rx.requestObject(path: "/users/41")
        let c: Single<User> = client.rx.requestObject(path: "/users/42")

        let triple = try Observable.zip(a.asObservable(), b.asObservable(), c.asObservable())
            .asSingle().toBlocking()
        XCTAssertEqual([triple.0.id, triple.1.id, triple.2.id], [40, 41, 42])

        let pair = try Single.zip(a, b).toBlocking()
        XCTAssertEqual([pair.0.id, pair.1.id], [40, 41])

        let all = try Single.zip([a, b, c]).toBlocking()
        XCTAssertEqual(all.map(\.id), [40, 41, 42])
        XCTAssertEqual(server.requests.count, 3 + 2 + 3, "each subscription sends its request once")
    }

    func testRetryAsWrittenInTheDesign() throws {
        server.route(.get, "/feed", responses: [.status(503), .json(#"{"id":1,"name":"feed"}"#)])
        let client = HTTPClient(baseURL: server.baseURL)
        let reachability = Reachability(host: "127.0.0.1", port: server.port, probeInterval: 0.2, timeout: 0.5)
        let user = try (client.rx.requestObject(path: "/feed") as Single<User>)
            .asObservable()
            .retry(3, delay: .exponential(initial: 0.05, multiplier: 2, maxDelay: 30),
                   didBecomeReachable: reachability.didBecomeReachable,
                   shouldRetry: { $0.isTransient })
            .asSingle()
            .toBlocking()
        XCTAssertEqual(user.name, "feed")
        XCTAssertEqual(server.requests(to: "/feed").count, 2)
    }

    func testProtocolDefinedRequestAndAsyncValue() async throws {
        let client = HTTPClient(baseURL: server.baseURL)
        let viaRequest = try await client.rx.request(GetUser(id: 43)).value
        XCTAssertEqual(viaRequest, User(id: 43, name: "user 43"))
        let user: User = try await client.rx.requestObject(path: "/users/44").value
        XCTAssertEqual(user.id, 44)
    }

    func testRequestObjectDropsNilParametersAndPlacesThemByMethod() throws {
        server.route(.any, "/search", .json(#"{"id":1,"name":"found"}"#))
        let client = HTTPClient(baseURL: server.baseURL)
        _ = try (client.rx.requestObject(
            path: "/search", method: .get, parameters: ["q": "swift", "page": nil], headers: ["X-Trace": "1"]
        ) as Single<User>).toBlocking()
        _ = try (client.rx.requestObject(path: "/search", method: .post, parameters: ["q": "swift", "page": nil]) as Single<User>)
            .toBlocking()
        let requests = server.requests(to: "/search")
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(requests[0].queryValue("q"), "swift")
        XCTAssertNil(requests[0].queryValue("page"))
        XCTAssertEqual(requests[0].header("X-Trace"), "1")
        XCTAssertTrue(requests[1].query?.isEmpty ?? true, "a POST carries its parameters in the body")
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: requests[1].body) as? [String: Any])
        XCTAssertEqual(body["q"] as? String, "swift")
        XCTAssertNil(body["page"])
    }

    func testConfigurationDefaultsAndErrorShape() throws {
        let configuration = HTTPClient.Configuration()
        XCTAssertEqual(configuration.timeout, 15)
        XCTAssertNotNil(configuration.defaultHeaders["User-Agent"])
        server.route(.get, "/teapot", .text("short and stout", status: 418))
        let client = HTTPClient(baseURL: server.baseURL)
        XCTAssertThrowsError(try (client.rx.requestObject(path: "/teapot") as Single<User>).toBlocking()) { error in
            let httpError = error as? HTTPClientError
            XCTAssertEqual(httpError?.code, .unacceptableStatusCode)
            XCTAssertEqual(httpError?.statusCode, 418)
            XCTAssertEqual(httpError?.body, Data("short and stout".utf8))
            XCTAssertNil(httpError?.underlying)
            XCTAssertFalse(error.isTransient)
        }
        let codes: [HTTPClientError.Code] = [.decodeError, .unacceptableStatusCode, .transport, .timedOut, .cancelled, .invalidRequest, .refreshFailed]
        XCTAssertEqual(Set(codes).count, 7)
    }

    func testDelayOptionsAndReachabilityStatusAsSpecified() {
        XCTAssertEqual(DelayOptions.exponential(initial: 0.5, multiplier: 2, maxDelay: 30).make(3), 2)
        XCTAssertEqual(DelayOptions.constant(time: 0.5).make(1), 0.5)
        XCTAssertEqual(DelayOptions.custom(closure: { Double($0) }).make(4), 4)
        XCTAssertEqual(DelayOptions.immediate.make(1), 0)
        XCTAssertEqual(ReachabilityStatus.reachable, .reachable)
        XCTAssertNotEqual(ReachabilityStatus.reachable, .unreachable)
        _ = MainScheduler.instance
    }
}

extension PrimitiveSequence where Trait == SingleTrait {
    /// Waits up to five seconds for the event; for tests only.
    func toBlocking(timeout: TimeInterval = 5) throws -> Element {
        let done = DispatchSemaphore(value: 0)
        let box = LockedResult<Element>()
        let subscription = subscribe(
            onSuccess: { box.set(.success($0)); done.signal() },
            onFailure: { box.set(.failure($0)); done.signal() }
        )
        defer { subscription.dispose() }
        guard done.wait(timeout: .now() + timeout) == .success, let result = box.value else {
            throw RxError.timeout
        }
        return try result.get()
    }
}

// @unchecked Sendable: `stored` is only touched under `lock`.
private final class LockedResult<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Result<Element, Error>?
    func set(_ value: Result<Element, Error>) { lock.withLock { stored = value } }
    var value: Result<Element, Error>? { lock.withLock { stored } }
}

// @unchecked Sendable: `stored` is only touched under `lock`.
private final class LockedUser: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: DesignContractTests.User?
    func set(_ value: DesignContractTests.User) { lock.withLock { stored = value } }
    var value: DesignContractTests.User? { lock.withLock { stored } }
}
