import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// An error only one probe recognises.
struct HookProbeError: Error {
    let token: UUID
    let id: Int
}

/// Records the `HookProbeError`s of its own token that reach `Hooks.defaultErrorHandler`; tests that
/// swap the process-wide handler install one through `withProbeHandler`.
final class HookProbe: Sendable {
    struct Report {
        let id: Int
        let callStack: [String]
    }

    let token = UUID()
    // A LockedState, which ThreadSanitizer sees (see `DisposeLog`).
    private let reports = LockedState<[Report]>.make([])

    var reported: [Report] {
        reports.withLock { $0 }
    }

    func error(_ id: Int) -> Error {
        HookProbeError(token: token, id: id)
    }

    /// A handler that records this probe's errors and passes any other error to `previous`.
    func handler(passingOthersTo previous: @escaping Hooks.DefaultErrorHandler) -> Hooks.DefaultErrorHandler {
        { [self] callStack, error in
            if let probeError = error as? HookProbeError, probeError.token == token {
                reports.withLock { $0.append(Report(id: probeError.id, callStack: callStack)) }
            } else {
                previous(callStack, error)
            }
        }
    }
}

/// Runs `body` with a probe's handler installed in front of the current one, then restores every
/// hook setting as it was.
func withProbeHandler(_ body: (HookProbe) throws -> Void) rethrows {
    let probe = HookProbe()
    let previousHandler = Hooks.defaultErrorHandler
    let previousCapture = Hooks.customCaptureSubscriptionCallstack
    let previousRecording = Hooks.recordCallStackOnError
    Hooks.defaultErrorHandler = probe.handler(passingOthersTo: previousHandler)
    defer {
        Hooks.defaultErrorHandler = previousHandler
        Hooks.customCaptureSubscriptionCallstack = previousCapture
        Hooks.recordCallStackOnError = previousRecording
    }
    try body(probe)
}
