import Foundation
import Synchronization
import RxNetworkKit
import RxTesting

/// `RxNetworkKitSoak daemon [--duration 180] [--hostile-every 60]`: one long-lived client, as a
/// daemon runs it, against real servers in child processes that fail on a schedule
/// (`DaemonSchedule`): an OAuth server with 60 s tokens and rotating refresh tokens, an API that is
/// killed and restarted, bursts 5xx, storms 429 with `Retry-After`, announces rate limits and serves
/// ETags, an event stream and (trait `AsyncHTTPClient`) a WebSocket that drop, and the hostile
/// rounds on the same client. The client uses everything: a retry policy with a deadline, host
/// protection (breaker, queue, rate-limit headers), the cache, coalescing, OAuth with a file
/// store, streams, and its events as metrics.
///
/// Every call is accounted for (`DaemonLedger`); orders are checked against what the API applied;
/// the run ends with SIGTERM, which drains the client. It exits 0 only if every check passed
/// (`DaemonReport`). 180 s is the CI variant; `--duration 3600` the hour.
enum DaemonSoak {
    struct Options {
        /// The daemon client's transport: AsyncHTTPClient where the trait is built in (what a Linux
        /// daemon should use), else URLSession; `--transport urlsession` chooses URLSession anyway.
        enum Transport: String {
            case urlSession = "urlsession"
            case asyncHTTPClient = "asynchttpclient"
        }

        var duration: TimeInterval = 180
        var hostileEvery: TimeInterval = 60
        var transport: Transport = DaemonWebSocket.isAvailable ? .asyncHTTPClient : .urlSession

        init(arguments: [String]) {
            var index = 2
            while index + 1 < arguments.count {
                switch (arguments[index], Double(arguments[index + 1])) {
                case ("--duration", let value?): duration = max(30, value)
                case ("--hostile-every", let value?): hostileEvery = max(10, value)
                case ("--transport", _):
                    if let choice = Transport(rawValue: arguments[index + 1].lowercased()), choice == .urlSession || DaemonWebSocket.isAvailable {
                        transport = choice
                    } else {
                        print("ignoring --transport \(arguments[index + 1]) (urlsession, or asynchttpclient with the trait)")
                    }
                default: print("ignoring \(arguments[index]) \(arguments[index + 1])")
                }
                index += 2
            }
        }
    }

    /// The client's configuration: what a careful daemon would set.
    static func configuration(cache: HTTPCache) -> HTTPClient.Configuration {
        HTTPClient.Configuration(
            timeout: 3,
            retryPolicy: RetryPolicy(
                maxAttempts: 6, delay: .exponential(initial: 0.25, multiplier: 2, maxDelay: 2), jitter: .full, deadline: 12
            ),
            maxResponseBodySize: 4 << 20,
            hostProtection: HostProtection(
                retryBudget: RetryBudget(ratio: 0.5, minRetriesPerSecond: 10),
                circuitBreaker: CircuitBreakerPolicy(failureRatio: 0.5, minimumRequests: 10, window: 10, breakDuration: 2),
                maxConcurrentRequests: 8, maxQueuedRequests: 64
            ),
            cache: cache,
            coalescing: true
        )
    }

    static func run(arguments: [String]) -> Int32 {
        let options = Options(arguments: arguments)
        guard SipHash.passesReferenceVector else {
            print("SipHash-2-4 does not give its reference vector")
            return 1
        }
        // Before anything else: SIGTERM is the drain's, through a dispatch source; and glibc gets
        // the settings a long-running service gives it (see GlibcMalloc).
        signal(SIGTERM, SIG_IGN)
        GlibcMalloc.capArenas(2)
        GlibcMalloc.fixMmapThreshold(128 << 10)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxsoak-daemon-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            print("cannot create \(directory.path): \(error)")
            return 1
        }
        defer { try? FileManager.default.removeItem(at: directory) }

        let key = SoakTokenKey.random()
        let clientSecret = randomHex()
        let password = randomHex()
        let t0 = Date()
        guard let servers = DaemonServers(directory: directory, t0: t0, key: key, clientSecret: clientSecret, password: password) else {
            print("could not start the servers")
            return 1
        }
        defer { servers.stopAll() }
        let secrets = SecretWatch()
        secrets.watch(permanently: clientSecret)
        secrets.watch(permanently: password)

        // The sign-in, by a client of its own: the daemon starts with a stored credential.
        let credential: OAuthCredential
        do {
            let signIn = HTTPClient(baseURL: servers.oauthURL)
            credential = try signIn.rx.request(SignIn(clientSecret: clientSecret, password: password)).toBlocking(timeout: 5).single()
            awaitShutdown(of: signIn)
        } catch {
            print("the sign-in failed: \(error)")
            return 1
        }
        secrets.watch(credential.accessToken)
        if let refreshToken = credential.refreshToken { secrets.watch(refreshToken) }

        // NIO's and Dispatch's own descriptors, opened once per process: before the baseline, so
        // that they do not count as the client's.
        DaemonWebSocket.warmUp(servers.oauthURL)
        warmUpDispatch()
        let descriptorsBefore = openFileDescriptors()
        let kindsBefore = HostileRounds.descriptorKinds()

        let tokenFile = directory.appendingPathComponent("state/token.json")
        let auth = OAuthAuthenticator(
            store: FileCredentialStore(url: tokenFile),
            refresher: .tokenEndpoint(servers.oauthURL.appendingPathComponent("oauth/token"), clientID: OAuthServer.clientID, clientSecret: clientSecret)
        )
        do {
            try auth.update(credential)
        } catch {
            print("the credential could not be stored: \(error)")
            return 1
        }
        let cache = HTTPCache(directory: directory.appendingPathComponent("http-cache"), maxDiskBytes: 32 << 20, maxMemoryBytes: 4 << 20)
        let client = HTTPClient(baseURL: servers.apiURL, configuration: configuration(cache: cache),
                                transport: DaemonWebSocket.transport(options.transport), authenticator: auth)
        // Outside the soak's accounting: the hostile server's control and the final statistics.
        let control = HTTPClient(baseURL: servers.oauthURL)
        let webSocket = DaemonWebSocket(baseURL: servers.apiURL)
        // A client keeps some state per host it talks to (its gate, its reachability), made on the
        // first request there and kept for the client's life: made before the baseline, it does
        // not count as a leak.
        for host in [servers.apiURL, servers.oauthURL, servers.hostileURL] {
            _ = try? client.rx.request(Ping(baseURL: host)).toBlocking(timeout: 5).single()
            _ = try? control.rx.request(Ping(baseURL: host)).toBlocking(timeout: 5).single()
        }
        let resourcesBefore = Resources.total
        let cpuBefore = cpuSeconds()

        let schedule = DaemonSchedule(t0: t0)
        let timeline = DaemonTimeline(schedule: schedule)
        let ledger = DaemonLedger(timeline: timeline, secrets: secrets)
        let metrics = DaemonMetrics(apiOrigin: servers.apiURL.absoluteString, timeline: timeline, secrets: secrets) {
            if let fresh = try? auth.currentCredential() {
                secrets.watch(fresh.accessToken)
                if let refreshToken = fresh.refreshToken { secrets.watch(refreshToken) }
            }
        }
        let eventsSubscription = client.events.subscribe(onNext: { metrics.observe($0) })
        let stream = DaemonEventStream(client: client)
        let load = DaemonLoad(client: client, ledger: ledger)
        let hostile = DaemonHostileRounds(client: client, target: RemoteHostileServer(baseURL: servers.hostileURL, control: control), timeline: timeline)

        // SIGTERM: stop the streams and the load, shut the client down with a grace period.
        let drained = DispatchSemaphore(value: 0)
        let drain = Mutex<(start: Date?, end: Date?)>((nil, nil))
        let signals = DispatchSource.makeSignalSource(signal: SIGTERM, queue: DispatchQueue(label: "soak.signal"))
        signals.setEventHandler {
            let start = Date()
            guard drain.withLock({ state -> Bool in
                guard state.start == nil else { return false }
                state.start = start
                return true
            }) else { return }
            timeline.drainBegan(at: start)
            stream.stop()
            webSocket.stop()
            let shutdown = client.shutdown(gracePeriod: 10)
            load.callAfterShutdown {}
            load.stop()
            _ = shutdown.subscribe { _ in
                drain.withLock { $0.end = Date() }
                drained.signal()
            }
        }
        signals.resume()

        print("daemon soak: \(Int(options.duration)) s, client on \(options.transport == .asyncHTTPClient ? "AsyncHTTPClientTransport" : "URLSessionTransport"); API :\(servers.apiURL.port ?? 0) (killed every \(Int(DaemonSchedule.restartEvery)) s for "
              + "\(DaemonSchedule.downtime) s; 5xx, 429 and rate-limit phases every \(Int(DaemonSchedule.cycle)) s), OAuth :\(servers.oauthURL.port ?? 0) "
              + "(\(Int(OAuthServer.accessTokenLifetime)) s tokens), hostile :\(servers.hostileURL.port ?? 0) (a round every \(Int(options.hostileEvery)) s), "
              + "WebSocket \(DaemonWebSocket.isAvailable ? "on" : "off (trait AsyncHTTPClient)")")
        fflush(nil)
        stream.start()
        webSocket.start()
        load.start()

        var samples = DaemonSamples()
        var restarts = DaemonSchedule.restarts(duration: options.duration)
        // A round paces its cases (~40 s): the last one starts early enough to end before the drain.
        var hostileTimes = Array(stride(from: 20, through: options.duration - 45, by: options.hostileEvery))
        var restartFailed = false
        // Until the duration is over, or a SIGTERM from outside began the drain early.
        while schedule.elapsed(at: Date()) < options.duration && drain.withLock({ $0.start == nil }) {
            Thread.sleep(forTimeInterval: 0.25)
            let elapsed = schedule.elapsed(at: Date())
            samples.sample(elapsed: elapsed)
            if let minute = samples.minuteJustEnded {
                let snapshot = ledger.snapshot
                print(String(format: "  minute %2d: rss=%6d KiB (trimmed %6d) fds=%3d calls=%d ok=%d unexpected=%d open=%d rx-resources=%d",
                             minute, samples.minutes.last?.rss ?? -1, samples.minutes.last?.trimmedRSS ?? -1, samples.minutes.last?.fds ?? -1, snapshot.calls,
                             snapshot.tallies.values.reduce(0) { $0 + $1.succeeded }, snapshot.unexpected, snapshot.open, Resources.total))
                fflush(nil)
            }
            if let next = restarts.first, elapsed >= next {
                restarts.removeFirst()
                // Kill while an order is in flight when one soon is: its answer is lost after the
                // API applied it, and only the Idempotency-Key keeps the retry from applying it twice.
                let waitUntil = Date().addingTimeInterval(2)
                while !metrics.orderAttemptAtServer() && Date() < waitUntil { usleep(5_000) }
                if let up = servers.restartAPI(downtime: DaemonSchedule.downtime, down: { timeline.apiWentDown(at: $0) }) {
                    timeline.apiCameBack(at: up)
                    metrics.restarted(at: up)
                } else {
                    print("the API could not be started again")
                    restartFailed = true
                    break
                }
            }
            if let next = hostileTimes.first, elapsed >= next {
                hostileTimes.removeFirst()
                hostile.startRound()
            }
        }
        hostile.waitForRound(timeout: 60)

        // The end: SIGTERM to ourselves, as a service manager would send it (unless one came).
        if drain.withLock({ $0.start == nil }) { kill(getpid(), SIGTERM) }
        let drainCompleted = drained.wait(timeout: .now() + 30) == .success
        let settle = Date().addingTimeInterval(2)
        while ledger.openCount > 0 && Date() < settle { usleep(10_000) }
        if let wsClient = webSocket.client { awaitShutdown(of: wsClient) }

        let apiStats = try? control.rx.request(GetStats<APIJournal.Summary>(baseURL: servers.apiURL)).toBlocking(timeout: 5).single()
        let oauthStats = try? control.rx.request(GetStats<OAuthServer.Stats>(baseURL: servers.oauthURL)).toBlocking(timeout: 5).single()
        awaitShutdown(of: control)
        eventsSubscription.dispose()
        servers.stopAll()
        let resourcesSettle = Date().addingTimeInterval(5)
        while Resources.isCounting && Resources.total != resourcesBefore && Date() < resourcesSettle { usleep(10_000) }
        let fdsSettle = Date().addingTimeInterval(5)
        while openFileDescriptors() > descriptorsBefore && Date() < fdsSettle { usleep(50_000) }

        let report = DaemonReport(
            options: options, schedule: schedule, timeline: timeline, ledger: ledger.snapshot, metrics: metrics.snapshot,
            stream: stream.snapshot, webSocket: DaemonWebSocket.isAvailable ? webSocket.snapshot : nil, hostile: hostile.snapshot,
            apiStats: apiStats, oauthStats: oauthStats, refreshSkew: auth.refreshSkew, samples: samples,
            descriptors: (descriptorsBefore, openFileDescriptors(), HostileRounds.difference(HostileRounds.descriptorKinds(), kindsBefore)),
            resources: (resourcesBefore, Resources.total, Resources.isCounting),
            cpuSeconds: cpuSeconds() - cpuBefore,
            drain: (drain.withLock { $0 }, drainCompleted, ledger.openCount),
            secrets: secrets.leaks, tokenFileMode: fileMode(tokenFile.path), restartFailed: restartFailed
        )
        return report.print() ? 0 : 1
    }

    /// Shuts `client` down and waits (up to 5 s) until it has.
    static func awaitShutdown(of client: HTTPClient) {
        let done = DispatchSemaphore(value: 0)
        let subscription = client.shutdown(gracePeriod: 2).subscribe { _ in done.signal() }
        _ = done.wait(timeout: .now() + 5)
        subscription.dispose()
    }

    static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(format: "%016llx%016llx", generator.next() as UInt64, generator.next() as UInt64)
    }

    /// User and system CPU time of this process so far, in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// The permission bits of the file at `path` (nil if it cannot be read).
    static func fileMode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }
}
