import Dispatch
import Foundation
import RxCore
import RxTesting
import XCTest

/// `Hooks`: an error that reaches `subscribe(onNext:...)` without `onError` goes to
/// `Hooks.defaultErrorHandler`, with the subscription's call stack when `recordCallStackOnError`
/// is on; every setting is safe to read and write from any thread.
///
/// The hooks are process-wide. Each test installs its handler through `withProbeHandler` (in
/// Support), which records only `HookProbeError`s carrying the test's own token, hands every other
/// error to the handler it replaced, and restores that handler (and the other settings) when the
/// test ends, failed or not: a test running meanwhile elsewhere in the process neither loses its
/// errors nor sees this test's ones.
final class HooksTests: RxTestCase {
    func testAnErrorWithoutOnErrorReachesTheDefaultErrorHandler() {
        withProbeHandler { probe in
            let subscription = Observable<Int>.error(probe.error(1)).subscribe(onNext: { _ in })
            XCTAssertEqual(probe.reported.map(\.id), [1])
            subscription.dispose()
        }
    }

    func testSingleMaybeAndCompletableWithoutAnErrorHandlerReportToo() {
        withProbeHandler { probe in
            Single<Int>.error(probe.error(1)).subscribe(onSuccess: { _ in }).dispose()
            Maybe<Int>.error(probe.error(2)).subscribe(onSuccess: { _ in }).dispose()
            Completable.error(probe.error(3)).subscribe(onCompleted: {}).dispose()
            Single<Int>.error(probe.error(4)).subscribe(onFailure: { _ in }).dispose()
            XCTAssertEqual(probe.reported.map(\.id), [1, 2, 3], "a handled failure is not reported")
        }
    }

    func testAnOnErrorHandlerKeepsTheErrorFromTheHook() {
        withProbeHandler { probe in
            let handled = DisposeLog()
            Observable<Int>.error(probe.error(1))
                .subscribe(onError: { _ in handled.record("onError") })
                .dispose()
            XCTAssertEqual(handled.names, ["onError"])
            XCTAssertEqual(probe.reported.count, 0, "a handled error was also reported")
        }
    }

    func testCompletionAndDisposeReportNothing() {
        withProbeHandler { probe in
            Observable.of(1, 2).subscribe(onNext: { _ in }).dispose()
            let subject = PublishSubject<Int>()
            let subscription = subject.subscribe(onNext: { _ in })
            subscription.dispose()
            subject.onError(probe.error(1))
            XCTAssertEqual(probe.reported.count, 0, "an error after dispose reached the hook")
        }
    }

    func testOnlyTheFirstTerminalErrorIsReported() {
        withProbeHandler { probe in
            let source = Observable<Int>.create { observer in
                observer.onError(probe.error(1))
                observer.onError(probe.error(2))
                return Disposables.create()
            }
            source.subscribe().dispose()
            XCTAssertEqual(probe.reported.map(\.id), [1])
        }
    }

    func testSubscribeWithAnObjectAndNoOnErrorReportsToo() {
        withProbeHandler { probe in
            let owner = Owner()
            Observable<Int>.error(probe.error(7))
                .subscribe(with: owner, onNext: { _, _ in })
                .dispose()
            XCTAssertEqual(probe.reported.map(\.id), [7])
        }
    }

    func testTheCallStackIsCapturedWhenTheSubscriptionIsMadeIfRecording() {
        withProbeHandler { probe in
            Hooks.recordCallStackOnError = true
            Hooks.customCaptureSubscriptionCallstack = { ["frame at subscribe"] }
            let subject = PublishSubject<Int>()
            let subscription = subject.subscribe(onNext: { _ in })
            Hooks.customCaptureSubscriptionCallstack = { ["frame at error"] }
            subject.onError(probe.error(3))
            XCTAssertEqual(probe.reported.map(\.callStack), [["frame at subscribe"]])
            subscription.dispose()
        }
    }

    func testNoCallStackIsCapturedWhenNotRecordingOrWhenOnErrorIsGiven() {
        withProbeHandler { probe in
            let captures = DisposeLog()
            Hooks.customCaptureSubscriptionCallstack = {
                captures.record("capture")
                return ["unexpected"]
            }
            Hooks.recordCallStackOnError = false
            Observable<Int>.error(probe.error(1)).subscribe().dispose()
            Hooks.recordCallStackOnError = true
            Observable<Int>.error(probe.error(2)).subscribe(onError: { _ in }).dispose()
            XCTAssertEqual(captures.count, 0, "a stack was captured for nothing")
            XCTAssertEqual(probe.reported.map(\.callStack), [[]])
        }
    }

    func testTheDefaultCaptureGivesTheCallersStackInDebugBuilds() {
        withProbeHandler { _ in
            let stack = Hooks.customCaptureSubscriptionCallstack()
            #if DEBUG
            XCTAssertFalse(stack.isEmpty, "DEBUG builds capture Thread.callStackSymbols")
            #else
            XCTAssertEqual(stack, [])
            #endif
        }
    }

    func testReportUnhandledPassesTheErrorAndTheStackToTheHandler() {
        withProbeHandler { probe in
            Hooks.reportUnhandled(probe.error(4), subscriptionCallStack: ["a", "b"])
            Hooks.reportUnhandled(probe.error(5))
            XCTAssertEqual(probe.reported.map(\.id), [4, 5])
            XCTAssertEqual(probe.reported.map(\.callStack), [["a", "b"], []])
        }
    }

    func testTheReplacedHandlerStillGetsOtherErrors() {
        let outer = HookProbe()
        let previous = Hooks.defaultErrorHandler
        Hooks.defaultErrorHandler = outer.handler(passingOthersTo: previous)
        defer { Hooks.defaultErrorHandler = previous }
        withProbeHandler { inner in
            Hooks.reportUnhandled(outer.error(1))
            Hooks.reportUnhandled(inner.error(2))
            XCTAssertEqual(inner.reported.map(\.id), [2])
        }
        XCTAssertEqual(outer.reported.map(\.id), [1], "an error that was not the probe's own was lost")
    }

    func testSettingsAreSafeToReadAndWriteFromManyThreads() {
        withProbeHandler { probe in
            let handler = Hooks.defaultErrorHandler
            let capture = Hooks.customCaptureSubscriptionCallstack
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                for index in 0..<200 {
                    switch (worker + index) % 4 {
                    case 0: Hooks.defaultErrorHandler = handler
                    case 1: Hooks.recordCallStackOnError = index.isMultiple(of: 2)
                    case 2: Hooks.customCaptureSubscriptionCallstack = capture
                    default: Observable<Int>.error(probe.error(worker)).subscribe().dispose()
                    }
                }
            }
            XCTAssertEqual(probe.reported.count, 8 * 50)
        }
    }
}

/// An object for `subscribe(with:)`.
private final class Owner: Sendable {}
