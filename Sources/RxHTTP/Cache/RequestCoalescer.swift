import Foundation
import RxCore
import Synchronization

/// Coalescing (`Configuration(coalescing: true)`) as an interceptor, after the cache and before
/// suspension, the retry policy, host protection and authentication: identical GET and HEAD
/// requests in flight at once share one exchange.
///
/// The first call of a kind starts the exchange as a call of the client's own, through the
/// interceptors after this one (so it is retried, admitted, rate-limited and signed once, not once
/// per caller), and every identical call — the first included — holds until it ends, then gets
/// its answer (`.answer`) or its failure (`.fail`) and decodes it on its own. A caller that leaves
/// (disposed, past its deadline) leaves the group; the exchange is cancelled when the last one
/// leaves. "Identical": the method, the URL, whether the client signs it, and the values of
/// `Authorization`, `Accept`, `Accept-Encoding`, `Accept-Language`, `Cookie` and of the headers a
/// stored answer's `Vary` names.
///
/// Bounded: a group takes at most 10,000 callers; the next identical call starts a group of its
/// own.
final class RequestCoalescer: HTTPInterceptor, Sendable {
    static let maxMembers = 10_000
    static let keyHeaders = ["authorization", "accept", "accept-encoding", "accept-language", "cookie"]

    struct Key: Hashable, Sendable {
        let method: String
        let url: String
        let signed: Bool
        let headers: [String: String]
    }

    private struct Group {
        let id: UInt64
        var members: [UInt64: @Sendable (HTTPInterceptorPreparation) -> Void] = [:]
        var exchange: HTTPCall?
    }

    private struct State {
        var groups: [Key: Group] = [:]
        var nextID: UInt64 = 0
        /// Groups every member left before their exchange was stored: its starter cancels it.
        var abandoned: Set<UInt64> = []
    }

    private let cache: HTTPCache?
    private let state = Mutex(State())

    init(cache: HTTPCache?) {
        self.cache = cache
    }

    func prepare(
        _ request: HTTPTransportRequest,
        for call: HTTPCall,
        completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void
    ) -> Disposable? {
        guard call.method == .get || call.method == .head, call.plan.stream == nil else {
            completion(.proceed(request))
            return nil
        }
        let key = key(for: request, url: request.url, signed: call.plan.requiresAuthentication)
        let (groupID, memberID, starts) = state.withLock { state -> (UInt64, UInt64, Bool) in
            state.nextID += 1
            let member = state.nextID
            if var group = state.groups[key], group.members.count < Self.maxMembers {
                group.members[member] = completion
                state.groups[key] = group
                return (group.id, member, false)
            }
            state.nextID += 1
            var group = Group(id: state.nextID)
            group.members[member] = completion
            // A full group stays reachable by its own members only (they hold its id).
            state.groups[key] = group
            return (group.id, member, true)
        }
        if starts {
            var plan = call.plan
            plan.request = request
            let exchange = call.client.startInternalCall(plan, after: .afterCoalescing) { [self] result in
                finish(key, group: groupID, result)
            }
            let abandoned = state.withLock { state -> Bool in
                if state.groups[key]?.id == groupID {
                    state.groups[key]?.exchange = exchange
                    return false
                }
                // Gone: it finished already (nothing to do), or everyone left meanwhile.
                return state.abandoned.remove(groupID) != nil
            }
            if abandoned { exchange.cancel() }
        }
        return Disposables.create { [self] in leave(key, group: groupID, member: memberID) }
    }

    private func finish(_ key: Key, group groupID: UInt64, _ result: Result<HTTPResponse, HTTPClientError>) {
        let members = state.withLock { state -> [@Sendable (HTTPInterceptorPreparation) -> Void] in
            guard let group = state.groups[key], group.id == groupID else { return [] }
            state.groups.removeValue(forKey: key)
            return Array(group.members.values)
        }
        let preparation: HTTPInterceptorPreparation
        switch result {
        case .success(let response): preparation = .answer(response)
        case .failure(let error): preparation = .fail(error)
        }
        for member in members {
            member(preparation)
        }
    }

    private func leave(_ key: Key, group groupID: UInt64, member: UInt64) {
        let exchange = state.withLock { state -> HTTPCall? in
            guard var group = state.groups[key], group.id == groupID else { return nil }
            group.members.removeValue(forKey: member)
            guard group.members.isEmpty else {
                state.groups[key] = group
                return nil
            }
            state.groups.removeValue(forKey: key)
            if group.exchange == nil { state.abandoned.insert(groupID) }
            return group.exchange
        }
        exchange?.cancel()
    }

    private func key(for request: HTTPTransportRequest, url: URL, signed: Bool) -> Key {
        let headers = request.headers
        var names = Self.keyHeaders
        if let cache, request.method == .get {
            for variant in cache.variants(for: CacheInterceptor.key(url)) {
                for name in CachedResponse.varyNames(variant.headers) where !names.contains(name) {
                    names.append(name)
                }
            }
        }
        return Key(
            method: request.httpMethod, url: CacheInterceptor.key(url), signed: signed,
            headers: CachedResponse.values(of: names, in: headers)
        )
    }
}
