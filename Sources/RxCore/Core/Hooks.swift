import Foundation
import Synchronization

/// Process-wide hooks, as in RxSwift: what happens to an error that reaches a subscription with no
/// error handler.
///
/// An error delivered to `subscribe(onNext:onError:onCompleted:onDisposed:)` (or
/// `subscribe(with:...)`) whose `onError` is nil, or to a `bind(to:)` of relays, is passed to
/// `defaultErrorHandler` together with the call stack of the subscription, if
/// `recordCallStackOnError` was true when it subscribed.
///
/// The settings are global mutable state, which RxCore otherwise avoids; they exist because RxSwift
/// code sets them. Each one is read and written under one lock, so setting them from any thread is
/// safe, but a read-modify-write (`recordCallStackOnError.toggle()`) is two steps, not one.
/// Handlers are called outside the lock.
///
/// - Note: Thread-safe.
public enum Hooks {
    /// Receives an error that no subscriber handled, with the call stack captured when the
    /// subscription was made (empty unless `recordCallStackOnError` was true then).
    public typealias DefaultErrorHandler = @Sendable (_ subscriptionCallStack: [String], _ error: Error) -> Void

    /// Captures the call stack of a subscription, one frame per line.
    public typealias CustomCaptureSubscriptionCallstack = @Sendable () -> [String]

    private struct Settings {
        var defaultErrorHandler: DefaultErrorHandler = Hooks.standardErrorHandler
        var customCaptureSubscriptionCallstack: CustomCaptureSubscriptionCallstack = Hooks.standardCallStackCapture
        var recordCallStackOnError = false
    }

    private static let settings = LockedState<Settings>.make(Settings())
    /// `recordCallStackOnError`, readable without the lock: every subscription without an error
    /// handler asks it, and almost always finds it false.
    private static let isRecordingCallStacks = Atomic<Bool>(false)

    /// Called with every error that reaches a subscription without an error handler.
    ///
    /// The default writes the error (and the call stack, if one was recorded) to standard error in
    /// DEBUG builds and does nothing in release builds. Assign a handler to log or report such
    /// errors; keep the previous value to restore it.
    ///
    /// - Note: Thread-safe. The handler runs on the thread the error arrives on, and may run
    ///   concurrently for different subscriptions.
    public static var defaultErrorHandler: DefaultErrorHandler {
        get { settings.withLock { $0.defaultErrorHandler } }
        set { settings.withLock { $0.defaultErrorHandler = newValue } }
    }

    /// Captures the call stack of a subscription when `recordCallStackOnError` is true.
    ///
    /// The default returns `Thread.callStackSymbols` in DEBUG builds and nothing in release builds.
    ///
    /// - Note: Thread-safe. Called on the subscribing thread, once per subscription without an error
    ///   handler, only while `recordCallStackOnError` is true.
    public static var customCaptureSubscriptionCallstack: CustomCaptureSubscriptionCallstack {
        get { settings.withLock { $0.customCaptureSubscriptionCallstack } }
        set { settings.withLock { $0.customCaptureSubscriptionCallstack = newValue } }
    }

    /// Whether a subscription without an error handler captures its call stack when it is made,
    /// for `defaultErrorHandler`; false by default, as capturing a stack is slow.
    ///
    /// - Note: Thread-safe. Applies to subscriptions made after it changes.
    public static var recordCallStackOnError: Bool {
        get { settings.withLock { $0.recordCallStackOnError } }
        set {
            settings.withLock {
                $0.recordCallStackOnError = newValue
                isRecordingCallStacks.store(newValue, ordering: .releasing)
            }
        }
    }

    // MARK: Reporting

    /// Passes `error`, which no subscriber handled, to `defaultErrorHandler`.
    ///
    /// For this package's subscribe functions that take an optional error handler
    /// (`Single`/`Maybe`/`Completable`): call it where the handler is nil, or use
    /// `unhandledErrorHandler()` to get a handler that also carries the subscription's call stack.
    ///
    /// - Parameters:
    ///   - error: The error no one handled.
    ///   - subscriptionCallStack: The call stack recorded when the subscription was made, if any.
    /// - Note: Thread-safe; the handler runs on the calling thread, outside any lock.
    package static func reportUnhandled(_ error: Error, subscriptionCallStack: [String] = []) {
        let handler = settings.withLock { $0.defaultErrorHandler }
        handler(subscriptionCallStack, error)
    }

    /// An error handler to use in place of a missing one: it reports to `defaultErrorHandler`,
    /// with the caller's call stack if `recordCallStackOnError` is true now.
    ///
    /// Call it when the subscription is made (the stack is captured then, on the calling thread).
    @usableFromInline
    package static func unhandledErrorHandler() -> @Sendable (Error) -> Void {
        guard isRecordingCallStacks.load(ordering: .acquiring) else { return reportWithoutCallStack }
        let capture = settings.withLock { $0.customCaptureSubscriptionCallstack }
        // User code: called outside the lock.
        let callStack = capture()
        return { error in reportUnhandled(error, subscriptionCallStack: callStack) }
    }

    /// The handler of subscriptions that recorded no call stack: one shared closure, so that a
    /// subscription without an error handler allocates nothing more.
    private static let reportWithoutCallStack: @Sendable (Error) -> Void = { error in
        reportUnhandled(error)
    }

    // MARK: Defaults

    /// DEBUG builds: writes the error, and the call stack if any, to standard error. Release builds:
    /// nothing.
    private static let standardErrorHandler: DefaultErrorHandler = { subscriptionCallStack, error in
        #if DEBUG
        var message = "RxCore: an error reached a subscription that has no error handler: \(error)\n"
        if !subscriptionCallStack.isEmpty {
            message += "The subscription was made at:\n" + subscriptionCallStack.joined(separator: "\n") + "\n"
        }
        FileHandle.standardError.write(Data(message.utf8))
        #endif
    }

    /// DEBUG builds: the current thread's call stack. Release builds: nothing.
    private static let standardCallStackCapture: CustomCaptureSubscriptionCallstack = {
        #if DEBUG
        return Thread.callStackSymbols
        #else
        return []
        #endif
    }
}
