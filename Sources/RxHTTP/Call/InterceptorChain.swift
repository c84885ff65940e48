import Foundation
import RxCore

/// A built-in interceptor that can usually decide before an attempt at once: the call asks
/// `prepareAtOnce` first and needs no completion, no hold and one lock for a run of them.
protocol ImmediateInterceptor: HTTPInterceptor {
    /// The decision at once, or nil when the interceptor has to wait (the call then asks `prepare`).
    func prepareAtOnce(_ request: HTTPTransportRequest, for call: HTTPCall) -> ImmediateDecision?
}

/// What an `ImmediateInterceptor` decides at once.
enum ImmediateDecision {
    /// Let the request through unchanged (nothing copied: the call keeps the one it has).
    case pass
    /// Answer or fail the attempt.
    case decide(HTTPInterceptorPreparation)

    /// The decision as `prepare` gives it: `.pass` is `.proceed(request)`.
    func preparation(passing request: HTTPTransportRequest) -> HTTPInterceptorPreparation {
        switch self {
        case .pass: .proceed(request)
        case .decide(let preparation): preparation
        }
    }
}

/// The interceptors of a call in their fixed order (the configuration's, then the built-ins, then
/// the plugins' adapter), with the fast path of each that has one. Built once per client for each
/// kind of call.
struct InterceptorChain: Sendable {
    let interceptors: [any HTTPInterceptor]
    let immediates: [(any ImmediateInterceptor)?]
    /// The configuration's interceptors, then the plugins' adapter: they observe attempts and calls
    /// (the built-ins do not).
    let observers: [any HTTPInterceptor]
    /// Where the plugins' adapter stands (the innermost step), if the client has plugins.
    let pluginStep: Int?

    /// - Parameters:
    ///   - interceptors: The configuration's and the built-ins, outermost first.
    ///   - observers: Which of them observe (the configuration's).
    ///   - plugins: The client's plugins, run by one adapter after `interceptors`.
    init(_ interceptors: [any HTTPInterceptor], observers: [any HTTPInterceptor], plugins: [any HTTPPlugin]) {
        if plugins.isEmpty {
            self.init(interceptors, observers: observers, pluginStep: nil)
        } else {
            let adapter = PluginInterceptor(plugins: plugins)
            self.init(interceptors + [adapter], observers: observers + [adapter], pluginStep: interceptors.count)
        }
    }

    private init(_ interceptors: [any HTTPInterceptor], observers: [any HTTPInterceptor], pluginStep: Int?) {
        self.interceptors = interceptors
        self.immediates = interceptors.map { $0 as? any ImmediateInterceptor }
        self.observers = observers
        self.pluginStep = pluginStep
    }

    /// The interceptors after the first `count`, the plugins' adapter included, observed by nobody:
    /// the chain of a call the client makes for its own needs (a shared exchange, a background
    /// revalidation), which starts where the interceptor that made it stands.
    func dropping(first count: Int) -> InterceptorChain {
        InterceptorChain(Array(interceptors.dropFirst(count)), observers: [], pluginStep: pluginStep.map { $0 - count })
    }
}
