import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// OAuth refresh against a LoopbackHTTPServer that is both the token server and the API.
///
/// The API accepts `Bearer <current>` only; the token endpoint rotates tokens (`access-N`,
/// `refresh-N`) and accepts each refresh token once. A shared ledger records, in arrival order,
/// what the server saw.
final class OAuthRefreshTests: LoopbackClientTestCase {
    /// What the server saw and decides.
    final class TokenServer: @unchecked Sendable {
        // @unchecked Sendable: every field is only touched under `lock`.
        private let lock = NSLock()
        private var generation = 1
        private var refreshes: [String] = []
        private var staleAfterRefreshBegan = 0
        private var refreshBegan = false
        var tokenDelay: TimeInterval = 0.05
        var refusal: LoopbackHTTPResponse?
        /// When set, a refusal is answered only once this is signalled (or after 5 s), so that
        /// every request a test starts is waiting for the refresh when the refusal arrives.
        var refusalGate: DispatchSemaphore?
        var expiresIn: Int? = 3_600

        var currentAccess: String { lock.withLock { "access-\(generation)" } }
        var refreshCount: Int { lock.withLock { refreshes.count } }
        /// Refreshes refused (a refresh token that was not the current one: `invalid_grant`).
        var refusedCount: Int { lock.withLock { refreshes.count - (generation - 1) } }
        var staleRequestsAfterRefreshBegan: Int { lock.withLock { staleAfterRefreshBegan } }

        func install(on server: LoopbackHTTPServer) {
            server.route(.any, "/api/*") { [self] request in
                let authorization = request.header("Authorization") ?? ""
                return lock.withLock {
                    let current = "Bearer access-\(generation)"
                    if authorization != current, refreshBegan { staleAfterRefreshBegan += 1 }
                    return authorization == current ? .json(#"{"id":1,"name":"ok"}"#) : .json(#"{"error":"expired"}"#, status: 401)
                }
            }
            server.route(.post, "/oauth/token") { [self] request in
                let form = Dictionary(uniqueKeysWithValues: (request.bodyString ?? "").split(separator: "&").map { pair -> (String, String) in
                    let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                    return (parts[0], parts.count > 1 ? parts[1] : "")
                })
                let (response, delay): (LoopbackHTTPResponse, TimeInterval) = lock.withLock {
                    refreshBegan = true
                    refreshes.append(form["refresh_token"] ?? "")
                    if let refusal { return (refusal, 0) }
                    guard form["grant_type"] == "refresh_token", form["refresh_token"] == "refresh-\(generation)" else {
                        return (.json(#"{"error":"invalid_grant","error_description":"unknown refresh token"}"#, status: 400), 0)
                    }
                    generation += 1
                    var fields = [#""access_token":"access-\#(generation)""#, #""token_type":"bearer""#, #""refresh_token":"refresh-\#(generation)""#]
                    if let expiresIn { fields.append(#""expires_in":\#(expiresIn)"#) }
                    return (.json("{" + fields.joined(separator: ",") + "}"), tokenDelay)
                }
                if let refusalGate, response.status >= 400 {
                    // Blocks this connection's thread only: the server serves others meanwhile.
                    _ = refusalGate.wait(timeout: .now() + 5)
                }
                return response.delayed(by: delay)
            }
        }

        func beginRound() {
            lock.withLock { refreshBegan = false }
        }
    }

    private let tokens = TokenServer()

    override func setUpWithError() throws {
        try super.setUpWithError()
        tokens.install(on: server)
    }

    private func authenticator(
        _ credential: OAuthCredential?, store: (any CredentialStore)? = nil, maxRefreshes: Int = 5, scheduler: SchedulerType? = nil
    ) -> (OAuthAuthenticator, any CredentialStore) {
        let store = store ?? InMemoryCredentialStore(credential)
        let auth = OAuthAuthenticator(
            store: store,
            refresher: .tokenEndpoint(server.url("/oauth/token"), clientID: "daemon", clientSecret: "s3cret"),
            maxRefreshes: maxRefreshes,
            scheduler: scheduler ?? ConcurrentDispatchQueueScheduler.background
        )
        return (auth, store)
    }

    private func client(_ auth: OAuthAuthenticator, policy: RetryPolicy = .none) -> HTTPClient {
        HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, retryPolicy: policy), authenticator: auth)
    }

    private func get(_ client: HTTPClient, _ path: String = "/api/me") -> Single<User> {
        client.rx.requestObject(path: path)
    }

    /// Starts `count` requests at once and waits for all their results; `started` runs once every
    /// request has been subscribed (each has asked for its credential by then).
    private func concurrent(
        _ count: Int, _ client: HTTPClient, started: () -> Void = {}
    ) -> [Result<User, HTTPClientError>] {
        let results = LockedBox([Result<User, HTTPClientError>]())
        let done = expectation(description: "all")
        done.expectedFulfillmentCount = count
        let bag = DisposeBag()
        for index in 0..<count {
            get(client, "/api/items/\(index)").subscribe(
                onSuccess: { user in results.mutate { $0.append(.success(user)) }; done.fulfill() },
                onFailure: { error in results.mutate { $0.append(.failure(error as? HTTPClientError ?? HTTPClientError(.transport))) }; done.fulfill() }
            ).disposed(by: bag)
        }
        started()
        wait(for: [done], timeout: 10)
        return results.value
    }

    // MARK: Single flight

    func testFiftyConcurrentRequestsWithAnExpiredTokenRefreshOnce() {
        let expired = OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date().addingTimeInterval(-60))
        let (auth, store) = authenticator(expired)
        let results = concurrent(50, client(auth))
        XCTAssertEqual(results.filter { (try? $0.get()) != nil }.count, 50, "\(results.filter { (try? $0.get()) == nil })")
        XCTAssertEqual(tokens.refreshCount, 1)
        XCTAssertEqual(auth.refreshCount, 1)
        XCTAssertEqual(tokens.staleRequestsAfterRefreshBegan, 0)
        XCTAssertEqual(server.requests.filter { $0.path.hasPrefix("/api/") }.count, 50, "a request was sent with the old token")
        XCTAssertEqual(try store.load()?.accessToken, "access-2")
        XCTAssertEqual(try store.load()?.refreshToken, "refresh-2")
    }

    func testFiftyConcurrentUnauthorizedAnswersRefreshOnceAndEachIsReplayedOnce() {
        // Expiry unknown and the access token already stale: the server's 401 is the only sign.
        let (auth, _) = authenticator(OAuthCredential(accessToken: "access-0", refreshToken: "refresh-1"))
        let results = concurrent(50, client(auth))
        XCTAssertEqual(results.filter { (try? $0.get()) != nil }.count, 50)
        XCTAssertEqual(tokens.refreshCount, 1, "one refresh for fifty unauthorized answers")
        let apiRequests = server.requests.filter { $0.path.hasPrefix("/api/items/") }
        XCTAssertLessThanOrEqual(apiRequests.count, 100, "a request was replayed more than once")
        XCTAssertEqual(apiRequests.filter { $0.header("Authorization") == "Bearer access-2" }.count, 50)
    }

    func testRequestsMadeDuringTheRefreshWaitAndCarryTheNewToken() {
        tokens.tokenDelay = 0.3
        let (auth, _) = authenticator(OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date().addingTimeInterval(5)))
        let client = client(auth)
        let first = get(client, "/api/first").subscribe()
        XCTAssertTrue(waitUntil(timeout: 2) { self.tokens.refreshCount == 1 })
        // The refresh is running: these wait for it.
        let results = concurrent(5, client)
        first.dispose()
        XCTAssertEqual(results.count, 5)
        XCTAssertTrue(results.allSatisfy { (try? $0.get()) != nil })
        XCTAssertEqual(server.requests.filter { $0.path.hasPrefix("/api/items/") }.map { $0.header("Authorization") },
                       Array(repeating: "Bearer access-2", count: 5))
        XCTAssertEqual(tokens.refreshCount, 1)
    }

    func testAStaleUnauthorizedIsReplayedWithoutARefresh() {
        let (auth, _) = authenticator(OAuthCredential(accessToken: "access-0", refreshToken: "refresh-1"))
        let client = client(auth)
        // First request refreshes (401 → refresh → replay with access-2).
        XCTAssertNotNil(success(result(of: get(client))))
        XCTAssertEqual(tokens.refreshCount, 1)
        // A ticket of version 1 refused now is stale: replayed at once with version 2.
        let stale = AuthenticationTicket(headerValue: "Bearer access-0", version: 1)
        let answer = LockedBox<Result<AuthenticationTicket, HTTPClientError>?>(nil)
        _ = auth.unauthorized(with: stale) { result in answer.mutate { $0 = result } }
        XCTAssertEqual(try answer.value?.get().headerValue, "Bearer access-2")
        XCTAssertEqual(tokens.refreshCount, 1, "a stale refusal started a refresh")
    }

    func testASecondUnauthorizedFailsTheRequest() {
        server.route(.get, "/api/forbidden", .json(#"{"e":1}"#, status: 401))
        let (auth, _) = authenticator(OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1"))
        let error = failure(result(of: get(client(auth), "/api/forbidden")))
        XCTAssertEqual(error?.code, .unacceptableStatusCode)
        XCTAssertEqual(error?.statusCode, 401)
        XCTAssertEqual(server.requests(to: "/api/forbidden").count, 2, "replayed exactly once")
        XCTAssertEqual(tokens.refreshCount, 1)
    }

    // MARK: Failures

    func testARejectedRefreshFailsEveryWaiterClearsTheStoreAndSaysSo() throws {
        tokens.refusal = .json(#"{"error":"invalid_grant","error_description":"refresh token revoked"}"#, status: 400)
        let expired = OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date().addingTimeInterval(-1))
        let (auth, store) = authenticator(expired)
        let lost = LockedBox([HTTPClientError]())
        let subscription = auth.didLoseAuthentication.subscribe(onNext: { error in lost.mutate { $0.append(error) } })
        // The refusal is held until all ten wait for the refresh: a request started after it would
        // find no credential at all, which is another test's case.
        let gate = DispatchSemaphore(value: 0)
        tokens.refusalGate = gate
        let results = concurrent(10, client(auth)) { gate.signal() }
        XCTAssertEqual(results.count, 10)
        for result in results {
            guard case .failure(let error) = result else { return XCTFail("a request succeeded after a rejected refresh") }
            XCTAssertEqual(error.code, .refreshFailed)
            XCTAssertTrue(error.message?.contains("invalid_grant") ?? false, String(describing: error))
            XCTAssertFalse(String(describing: error).contains("refresh-1"))
        }
        XCTAssertNil(try store.load())
        XCTAssertEqual(lost.value.count, 1)
        XCTAssertEqual(tokens.refreshCount, 1)
        XCTAssertEqual(server.requests.filter { $0.path.hasPrefix("/api/") }.count, 0)
        subscription.dispose()
    }

    func testAnOfflineRefreshKeepsTheCredentialAndSucceedsWhenTheServerIsBack() throws {
        let expired = OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date().addingTimeInterval(-1))
        let (auth, store) = authenticator(expired)
        // The client's policy retries the refresh (a POST not yet sent) when the host is back.
        let restart: @Sendable (RetryNotification<HTTPClientError>) -> Void = { [server] _ in try? server.start() }
        let client = client(auth, policy: RetryPolicy(maxAttempts: 3, delay: .constant(time: 0.05), retriesWhenReachable: false, onRetry: restart))
        server.stop()
        let user = success(result(of: get(client)))
        XCTAssertEqual(user?.name, "ok")
        XCTAssertEqual(try store.load()?.accessToken, "access-2")
        XCTAssertEqual(tokens.refreshCount, 1)
    }

    func testAnOfflineRefreshThatGivesUpFailsWithTheTransportErrorAndKeepsTheCredential() throws {
        let expired = OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date().addingTimeInterval(-1))
        let (auth, store) = authenticator(expired)
        let lost = LockedBox(0)
        let subscription = auth.didLoseAuthentication.subscribe(onNext: { _ in lost.mutate { $0 += 1 } })
        server.stop()
        let error = failure(result(of: get(client(auth))))
        XCTAssertEqual(error?.code, .transport)
        XCTAssertEqual(error?.phase, .notSent)
        XCTAssertEqual(try store.load(), expired, "signed out because the network was down")
        XCTAssertEqual(lost.value, 0)
        subscription.dispose()
    }

    func testAStormOfRefreshesIsStopped() {
        // The server issues tokens that it then refuses: every request refreshes again.
        server.route(.any, "/api/*", .json(#"{"e":1}"#, status: 401))
        let (auth, store) = authenticator(OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1"), maxRefreshes: 3)
        let client = client(auth)
        var codes: [HTTPClientError.Code?] = []
        for _ in 0..<5 {
            codes.append(failure(result(of: get(client)))?.code)
        }
        XCTAssertEqual(tokens.refreshCount, 3)
        XCTAssertEqual(codes, [.unacceptableStatusCode, .unacceptableStatusCode, .unacceptableStatusCode, .refreshFailed, .refreshFailed])
        XCTAssertNotNil(try? store.load(), "the storm guard is not a rejection: the credential stays")
    }

    func testProactiveRefreshWithinTheSkew() {
        let soon = OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date().addingTimeInterval(20))
        let (auth, _) = authenticator(soon)
        XCTAssertNotNil(success(result(of: get(client(auth)))))
        XCTAssertEqual(tokens.refreshCount, 1)
        XCTAssertEqual(server.requests.filter { $0.path.hasPrefix("/api/") }.map { $0.header("Authorization") }, ["Bearer access-2"])
        // Far from expiry: no refresh.
        let later = OAuthCredential(accessToken: "access-2", refreshToken: "refresh-2", expiresAt: Date().addingTimeInterval(3_600))
        let (fresh, _) = authenticator(later)
        XCTAssertNotNil(success(result(of: get(client(fresh)))))
        XCTAssertEqual(tokens.refreshCount, 1)
    }

    func testAnUnauthorizedRefreshCallDoesNotRecurse() {
        tokens.refusal = .json(#"{"error":"invalid_client"}"#, status: 401)
        let (auth, _) = authenticator(OAuthCredential(accessToken: "access-0", refreshToken: "refresh-1"))
        let error = failure(result(of: get(client(auth))))
        XCTAssertEqual(error?.code, .refreshFailed)
        XCTAssertEqual(tokens.refreshCount, 1)
        XCTAssertEqual(server.requests(to: "/oauth/token").count, 1)
    }

    func testTheRefreshBypassesSuspension() {
        let (auth, _) = authenticator(OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date().addingTimeInterval(-1)))
        let client = client(auth)
        let box = ResultBox<User>()
        let subscription = get(client).subscribe(onSuccess: { box.set(.success($0)) }, onFailure: { _ in })
        client.suspend()
        XCTAssertTrue(waitUntil(timeout: 2) { self.tokens.refreshCount == 1 })
        client.resume()
        XCTAssertTrue(waitUntil(timeout: 2) { box.deliveries == 1 })
        subscription.dispose()
    }

    func testTheTokenRequestIsRFC6749() throws {
        let (auth, _) = authenticator(OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date().addingTimeInterval(-1)))
        XCTAssertNotNil(success(result(of: get(client(auth)))))
        let token = try XCTUnwrap(server.requests(to: "/oauth/token").first)
        XCTAssertEqual(token.header("Content-Type"), "application/x-www-form-urlencoded; charset=utf-8")
        XCTAssertEqual(token.header("Authorization"), "Basic " + Data("daemon:s3cret".utf8).base64EncodedString())
        let form = token.bodyString ?? ""
        XCTAssertTrue(form.contains("grant_type=refresh_token"), form)
        XCTAssertTrue(form.contains("refresh_token=refresh-1"), form)
        XCTAssertFalse(form.contains("client_secret"), form)
        XCTAssertEqual(try auth.currentCredential()?.tokenType, "bearer")
        XCTAssertNotNil(try auth.currentCredential()?.expiresAt)
    }

    func testUnauthenticatedRequestsCarryNoToken() {
        struct Health: Request {
            typealias Response = String
            var path: String { "/health" }
            var requiresAuthentication: Bool { false }
        }
        server.route(.get, "/health", .text("up"))
        let (auth, _) = authenticator(OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1"))
        XCTAssertEqual(success(result(of: client(auth).rx.request(Health()))), "up")
        XCTAssertNil(server.requests(to: "/health").last?.header("Authorization"))
    }

    func testNoCredentialFailsBeforeSending() {
        let (auth, _) = authenticator(nil)
        let error = failure(result(of: get(client(auth))))
        XCTAssertEqual(error?.code, .refreshFailed)
        XCTAssertEqual(error?.phase, .notSent)
        XCTAssertEqual(server.requests.count, 0)
    }

    func testTokensNeverReachTheLog() {
        let lines = LineCollector()
        let (auth, _) = authenticator(OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date().addingTimeInterval(-1)))
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5),
                                plugins: [NetworkLoggerPlugin(logsHeaders: true, logsBodies: true, sink: lines.append)], authenticator: auth)
        XCTAssertNotNil(success(result(of: get(client))))
        let text = lines.lines.joined(separator: "\n")
        for secret in ["access-1", "access-2", "refresh-1", "refresh-2", "s3cret", Data("daemon:s3cret".utf8).base64EncodedString()] {
            XCTAssertFalse(text.contains(secret), "\(secret) leaked:\n\(text)")
        }
        XCTAssertTrue(text.contains("grant_type=refresh_token"), text)
        XCTAssertFalse(String(describing: try? auth.currentCredential()).contains("access-2"))
    }
}
