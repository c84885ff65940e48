import Foundation

/// The end of the daemon soak: every figure the issue asks for, as markdown tables, and the checks
/// that decide the exit status.
struct DaemonReport {
    let options: DaemonSoak.Options
    let schedule: DaemonSchedule
    let timeline: DaemonTimeline
    let ledger: DaemonLedger.Snapshot
    let metrics: DaemonMetrics.Counts
    let stream: (received: Int, lastID: Int, violations: Int, outOfOrder: [String], endings: [String: Int])
    let webSocket: (messages: Int, connections: Int, violations: Int, firstViolation: String?, states: [String: Int], ending: String?)?
    let hostile: DaemonHostileRounds.Snapshot
    let apiStats: APIJournal.Summary?
    let oauthStats: OAuthServer.Stats?
    let refreshSkew: TimeInterval
    let samples: DaemonSamples
    let descriptors: (before: Int, after: Int, difference: String)
    let resources: (before: Int, after: Int, counting: Bool)
    let cpuSeconds: Double
    let drain: (times: (start: Date?, end: Date?), completed: Bool, open: Int)
    let secrets: (count: Int, first: String?)
    let tokenFileMode: Int?
    let restartFailed: Bool

    private struct Check {
        let name: String
        let passed: Bool
        let detail: String
    }

    /// Prints the report; returns whether every check passed.
    func print() -> Bool {
        let checks = makeChecks()
        Swift.print("\n## Daemon soak: \(Int(options.duration)) s, client on \(options.transport == .asyncHTTPClient ? "AsyncHTTPClientTransport" : "URLSessionTransport")\n")
        Swift.print("| calls | made | succeeded | failed, by error | unexpected |")
        Swift.print("| --- | ---: | ---: | --- | ---: |")
        for kind in DaemonLedger.Kind.allCases {
            let tally = ledger.tallies[kind] ?? DaemonLedger.Tally()
            Swift.print("| \(kind.rawValue) | \(tally.calls) | \(tally.succeeded) | \(listing(tally.failures)) | \(tally.unexpected) |")
        }
        Swift.print("| Server-Sent Events `/events` | \(stream.received) events | in order, once: \(stream.violations == 0 ? "yes" : "NO") | ended for good: \(stream.endings.isEmpty ? "never" : listing(stream.endings) + " (resubscribed)") | \(stream.violations) |")
        if let webSocket {
            Swift.print("| WebSocket `/ws` (AsyncHTTPClient) | \(webSocket.messages) messages, \(webSocket.connections) connections | in order: \(webSocket.violations == 0 ? "yes" : "NO") | \(webSocket.ending ?? "stayed up") | \(webSocket.violations) |")
        } else {
            Swift.print("| WebSocket `/ws` | not run: needs `--traits AsyncHTTPClient` | | | |")
        }
        let hostileOK = hostile.outcomes.values.reduce(0) { $0 + $1.filter { !$0.key.hasPrefix("UNEXPECTED") }.values.reduce(0, +) }
        Swift.print("| hostile rounds (same client) | \(hostile.rounds) rounds × \(hostile.rounds > 0 ? hostile.cases / hostile.rounds : 0) cases | \(hostileOK) as expected | longest round \(String(format: "%.1f", hostile.longestRound)) s | \(hostile.unexpected) |")

        Swift.print("\n| figure | value |")
        Swift.print("| --- | --- |")
        for (name, value) in figures() {
            Swift.print("| \(name) | \(value) |")
        }

        Swift.print("\n| check | result | detail |")
        Swift.print("| --- | --- | --- |")
        for check in checks {
            Swift.print("| \(check.name) | \(check.passed ? "pass" : "**FAIL**") | \(check.detail) |")
        }
        if !ledger.unexpectedSamples.isEmpty {
            Swift.print("\nunexpected outcomes (first \(ledger.unexpectedSamples.count)):")
            ledger.unexpectedSamples.forEach { Swift.print("  - \($0)") }
        }
        if !stream.outOfOrder.isEmpty {
            Swift.print("\nevents out of order: \(stream.outOfOrder.joined(separator: "; "))")
        }
        let unexpectedHostile = hostile.outcomes.filter { $0.value.keys.contains { $0.hasPrefix("UNEXPECTED") } }
        for (name, outcomes) in unexpectedHostile.sorted(by: { $0.key < $1.key }) {
            Swift.print("  hostile \(name): \(listing(outcomes))")
        }
        let passed = checks.allSatisfy(\.passed)
        Swift.print("\n\(passed ? "every check passed" : "FAILED: \(checks.filter { !$0.passed }.map(\.name).joined(separator: ", "))")")
        fflush(nil)
        return passed
    }

    // MARK: Figures

    private func figures() -> [(String, String)] {
        var rows: [(String, String)] = []
        let recoveries = recoveryTimes()
        rows.append(("API restarts (SIGKILL, \(DaemonSchedule.downtime) s down)", "\(metrics.restarts.count)"))
        rows.append(("recovery: restart → first answer", percentiles(recoveries.response)))
        rows.append(("recovery: restart → first success from the network", percentiles(recoveries.success)))
        rows.append(("client events: calls started / attempts / retries", "\(metrics.started) / \(metrics.attempts) / \(metrics.retries)"))
        rows.append(("waits to retry ended by", listing(metrics.waitEnds)))
        rows.append(("calls ended (events)", listing(metrics.completed)))
        rows.append(("sends held back, by reason and phase", listing(metrics.held)))
        let received429 = metrics.tooManyRequests.values.reduce(0, +)
        rows.append(("429s received (by phase)", "\(received429) (\(listing(metrics.tooManyRequests)))"))
        rows.append(("429s avoided: sends held by the rate-limit headers' cooldown", "\(heldByRateLimitHeaders)"))
        rows.append(("5xx answers received", "\(metrics.serverErrors)"))
        rows.append(("circuit breaker changes (API)", listing(metrics.breakerChanges)))
        rows.append(("cache (items)", listing(ledger.cacheStatuses)))
        rows.append(("feed bursts of \(DaemonLoad.burst), by exchanges that served them", listing(Dictionary(uniqueKeysWithValues: ledger.exchangesPerBurst.map { ("\($0.key)", $0.value) }))))
        if let apiStats {
            rows.append(("API saw (all incarnations)", listing(apiStats.counts)))
            let applied = apiStats.applications.count
            rows.append(("orders: succeeded / failed / applied by the API / answered from its journal", "\(ledger.succeededOrders.count) / \(ledger.failedOrders.count) / \(applied) / \(apiStats.replays) (\(ledger.replayedReceipts) such answers reached the client)"))
            let appliedButFailed = ledger.failedOrders.filter { apiStats.applications[DaemonLedger.orderName($0)] != nil }.count
            rows.append(("orders the client saw fail that the API had applied", "\(appliedButFailed) (applied, the answer lost, and the call ended before a retry got it: breaker, deadline, budget)"))
        }
        if let oauthStats {
            let ages = refreshAges(oauthStats)
            rows.append(("access tokens issued / refreshed (rotations)", "\(oauthStats.tokens.count) / \(ages.count)"))
            rows.append(("refreshes seen by the client: started / succeeded / failed", "\(metrics.refreshesStarted) / \(metrics.refreshesSucceeded) / \(metrics.refreshesFailed)"))
            rows.append(("token age at its refresh (lifetime \(Int(OAuthServer.accessTokenLifetime)) s, skew \(Int(refreshSkew)) s)", ages.isEmpty ? "-" : String(format: "%.1f–%.1f s", ages.min() ?? 0, ages.max() ?? 0)))
            rows.append(("refused refresh tokens (a spent one reused) / bad client credentials", "\(oauthStats.invalidGrants) / \(oauthStats.badClients)"))
        }
        rows.append(("RSS each minute (KiB)", samples.minutes.map { "\($0.minute): \($0.rss)" }.joined(separator: ", ")))
        rows.append(("RSS each minute after `malloc_trim(0)` (KiB)", samples.minutes.map { "\($0.minute): \($0.trimmedRSS)" }.joined(separator: ", ")))
        if let growth = rssGrowth(\.rss), let trimmed = rssGrowth(\.trimmedRSS) {
            rows.append(("RSS growth after minute \(growth.from): as is / trimmed", String(format: "%+.1f%% / %+.1f%%", growth.percent, trimmed.percent)))
        }
        rows.append(("descriptors: floor each minute", samples.minutes.map { "\($0.minute): \($0.fds)" }.joined(separator: ", ")))
        rows.append(("descriptors: before the client / after the drain", "\(descriptors.before) / \(descriptors.after) (\(descriptors.difference))"))
        rows.append(("`Resources.total`: baseline / after the drain", resources.counting ? "\(resources.before) / \(resources.after)" : "not counted (release build)"))
        let calls = ledger.calls + hostile.cases
        rows.append(("CPU per call (user + system, whole process)", String(format: "%.0f µs (%.1f s for %d calls, hostile cases included)", cpuSeconds / Double(max(calls, 1)) * 1e6, cpuSeconds, calls)))
        // The load runs at a steady rate, so the calls made outside the rounds are its share of the
        // time outside them.
        let outside = max(0, 1 - hostile.seconds / max(options.duration, 1))
        let outsideCalls = Double(ledger.calls) * outside
        rows.append(("CPU during the hostile rounds / CPU per call outside them", String(
            format: "%.1f s in %.0f s of rounds / %.0f µs (%.1f s for ~%.0f calls)",
            hostile.cpuSeconds, hostile.seconds, (cpuSeconds - hostile.cpuSeconds) / max(outsideCalls, 1) * 1e6,
            cpuSeconds - hostile.cpuSeconds, outsideCalls
        )))
        if let start = drain.times.start {
            rows.append(("drain after SIGTERM", drain.times.end.map { String(format: "%.3f s (grace 10 s)", $0.timeIntervalSince(start)) } ?? "did not complete"))
        }
        return rows
    }

    private var heldByRateLimitHeaders: Int {
        metrics.held["cooldown in \(DaemonSchedule.Phase.rateLimited.rawValue)"] ?? 0
    }

    private func recoveryTimes() -> (response: [TimeInterval], success: [TimeInterval]) {
        (metrics.restarts.compactMap { $0.firstResponse?.timeIntervalSince($0.up) },
         metrics.restarts.compactMap { $0.firstSuccess?.timeIntervalSince($0.up) })
    }

    private func refreshAges(_ stats: OAuthServer.Stats) -> [TimeInterval] {
        stats.tokens.compactMap { token in token.refreshed.map { $0 - token.issued } }
    }

    private func rssGrowth(_ value: KeyPath<DaemonSamples.Minute, Int>) -> (from: Int, percent: Double)? {
        guard let first = samples.minutes.first(where: { $0.minute >= 5 }) ?? samples.minutes.first,
              let last = samples.minutes.last else { return nil }
        return (first.minute, Double(last[keyPath: value] - first[keyPath: value]) / Double(max(first[keyPath: value], 1)) * 100)
    }

    // MARK: Checks

    private func makeChecks() -> [Check] {
        var checks: [Check] = []
        func check(_ name: String, _ passed: Bool, _ detail: String) {
            checks.append(Check(name: name, passed: passed, detail: detail))
        }
        check("every call ended", ledger.open == 0 && drain.open == 0, "\(ledger.calls) calls, \(ledger.open) still open")
        check("every outcome expected for its moment", ledger.unexpected == 0, "\(ledger.unexpected) unexpected")
        check("the API restarted every time", !restartFailed && !metrics.restarts.isEmpty || DaemonSchedule.restarts(duration: options.duration).isEmpty,
              "\(metrics.restarts.count) of \(DaemonSchedule.restarts(duration: options.duration).count)")

        // Orders: nothing lost, nothing done twice.
        if let apiStats {
            let twice = apiStats.applications.filter { $0.value.count > 1 }
            let lost = ledger.succeededOrders.filter { apiStats.applications[DaemonLedger.orderName($0.key)]?.map(UUID.init(uuidString:)) != [$0.value] }
            check("orders: every success applied once, none twice", twice.isEmpty && lost.isEmpty && !ledger.succeededOrders.isEmpty,
                  "\(ledger.succeededOrders.count) succeeded; applied twice: \(twice.count); success not applied under its key: \(lost.count)")
            let unauthorized = apiStats.counts.filter { $0.key.hasPrefix("401") }
            check("no request refused for its token", unauthorized.isEmpty, unauthorized.isEmpty ? "0 401s" : listing(unauthorized))
            check("the cache revalidates with ETags", (apiStats.counts["items 304"] ?? 0) > 0 && (ledger.cacheStatuses["hit"] ?? 0) > 0,
                  "\(apiStats.counts["items 304"] ?? 0) 304s, \(ledger.cacheStatuses["hit"] ?? 0) hits")
        } else {
            check("the API's statistics", false, "could not be read")
        }

        // Refreshes: exactly one per expiry.
        if let oauthStats, let drainStart = drain.times.start {
            let lifetime = OAuthServer.accessTokenLifetime
            let due = lifetime - refreshSkew
            let ages = refreshAges(oauthStats)
            let tooEarly = ages.filter { $0 < due - 0.5 }
            let tooLate = ages.filter { $0 >= lifetime }
            // A token whose refresh was due well before the drain must have been refreshed.
            let missed = oauthStats.tokens.filter { $0.refreshed == nil && $0.issued + due + 10 < drainStart.timeIntervalSince1970 }
            check("exactly one refresh per token expiry",
                  oauthStats.invalidGrants == 0 && oauthStats.badClients == 0 && tooEarly.isEmpty && tooLate.isEmpty && missed.isEmpty
                    && metrics.refreshesSucceeded == ages.count && metrics.refreshesFailed == 0 && !ages.isEmpty,
                  "\(ages.count) rotations for \(oauthStats.tokens.count) tokens; early \(tooEarly.count), late \(tooLate.count), missed \(missed.count), "
                    + "refused \(oauthStats.invalidGrants), client saw \(metrics.refreshesSucceeded) (\(metrics.refreshesFailed) failed)")
        } else {
            check("the token server's statistics", false, "could not be read")
        }

        check("events: every one once, in order, never ended for good",
              stream.violations == 0 && stream.received > 0 && stream.received == stream.lastID && stream.endings.isEmpty,
              "\(stream.received) events, last id \(stream.lastID)\(stream.endings.isEmpty ? "" : "; ended: \(listing(stream.endings))")")
        if let webSocket {
            check("WebSocket: in order, reconnected through every drop", webSocket.violations == 0 && webSocket.messages > 0 && webSocket.ending == nil,
                  "\(webSocket.messages) messages over \(webSocket.connections) connections\(webSocket.firstViolation.map { "; \($0)" } ?? "")")
        }
        check("hostile rounds: every case as expected", hostile.unexpected == 0 && hostile.rounds > 0,
              "\(hostile.rounds) rounds, \(hostile.unexpected) unexpected")

        let recoveries = recoveryTimes()
        let unrecovered = metrics.restarts.filter { $0.firstResponse == nil }.count
        check("every restart recovered within 3 s", unrecovered == 0 && (recoveries.response.max() ?? 0) <= 3,
              "max \(String(format: "%.3f", recoveries.response.max() ?? 0)) s, \(unrecovered) never answered")

        let openings = timeline.breakerOpenings
        let unexplainedOpenings = openings.filter { opening in
            !timeline.outage(overlapping: opening...opening, after: 3)
                && !schedule.windows(overlapping: opening.addingTimeInterval(-3)...opening).contains { $0.phase == .serverErrors }
        }
        check("the breaker opened only for outages and 5xx bursts", unexplainedOpenings.isEmpty,
              "\(openings.count) openings, \(unexplainedOpenings.count) unexplained")

        let bursts = ledger.exchangesPerBurst.values.reduce(0, +)
        let shared = ledger.exchangesPerBurst[1] ?? 0
        check("coalescing: a burst of identical calls is one exchange", bursts > 0 && Double(shared) >= 0.95 * Double(bursts),
              "\(shared) of \(bursts) bursts")

        if options.duration >= 48 {
            let received = metrics.tooManyRequests[DaemonSchedule.Phase.rateLimited.rawValue] ?? 0
            check("rate-limit headers avoid 429s", heldByRateLimitHeaders > received,
                  "\(heldByRateLimitHeaders) sends held, \(received) 429s received while the API announced its limits")
        }

        if let start = drain.times.start {
            let took = drain.times.end?.timeIntervalSince(start)
            check("SIGTERM drains within the grace period", drain.completed && (took ?? 99) < 10,
                  took.map { String(format: "%.3f s", $0) } ?? "did not complete")
        } else {
            check("SIGTERM drains within the grace period", false, "SIGTERM was not handled")
        }

        if options.duration >= 600, let growth = rssGrowth(\.trimmedRSS), let untrimmed = rssGrowth(\.rss) {
            check("RSS grows ≤ 5% after minute 5 (trimmed)", growth.percent <= 5,
                  String(format: "%+.1f%% from minute %d (%+.1f%% untrimmed)", growth.percent, growth.from, untrimmed.percent))
        }
        check("descriptors back to where they were", descriptors.after <= descriptors.before,
              "\(descriptors.before) before the client, \(descriptors.after) after the drain")
        if resources.counting {
            check("`Resources.total` back to baseline", resources.after == resources.before, "\(resources.before) → \(resources.after)")
        }
        check("no secret in an error or event", secrets.count == 0, secrets.first.map { "\(secrets.count), first in \($0)" } ?? "0 found")
        check("the credential file is private", tokenFileMode == 0o600, tokenFileMode.map { String($0, radix: 8) } ?? "missing")
        return checks
    }

    // MARK: Formatting

    private func listing(_ counts: [String: Int]) -> String {
        counts.isEmpty ? "-" : counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    private func percentiles(_ values: [TimeInterval]) -> String {
        guard !values.isEmpty else { return "-" }
        let sorted = values.sorted()
        func at(_ p: Double) -> TimeInterval { sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))] }
        return String(format: "p50 %.3f s, p95 %.3f s, max %.3f s (%d)", at(0.5), at(0.95), sorted.last ?? 0, sorted.count)
    }
}
