extension Observable {
    /// A sequence produced by a loop over a state (RxSwift's `generate`): emits `initialState`,
    /// then `iterate(initialState)`, and so on while `condition` holds, then completes.
    ///
    /// Each element is sent by its own action on `scheduler`, and the completion by one more, so
    /// an endless loop (`condition` always true) is fine: disposing the subscription cancels the
    /// pending action and nothing more is computed. Only one action is pending at a time.
    ///
    /// - Parameters:
    ///   - initialState: The first state, tested by `condition` before it is emitted.
    ///   - condition: Whether a state is emitted (true) or the sequence completes (false).
    ///   - scheduler: Where the loop runs. The default, `CurrentThreadScheduler.instance`, runs it
    ///     on the subscribing thread, trampolined (constant stack depth).
    ///   - iterate: The state after a given one, called once the previous element was delivered.
    /// - Returns: A cold sequence; every subscription runs the loop from `initialState`.
    /// - Note: An error thrown by `condition` or `iterate` terminates the sequence with it.
    ///   `condition`, `iterate` and the events run on `scheduler`, one action at a time. A
    ///   downstream that has enough (`take(3)`) stops the loop even when the scheduler runs actions
    ///   synchronously. Thread-safe.
    public static func generate(
        initialState: Element,
        condition: @escaping @Sendable (Element) throws -> Bool,
        scheduler: any ImmediateSchedulerType = CurrentThreadScheduler.instance,
        iterate: @escaping @Sendable (Element) throws -> Element
    ) -> Observable<Element> {
        GenerateObservable(
            initialState: initialState,
            condition: condition,
            iterate: iterate,
            result: { $0 },
            scheduler: scheduler
        )
    }
}

/// The loop behind `generate`, `range` and `repeatElement`: a state, a condition, a step, and the
/// element made from each state.
// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure, except the
// initial state, handed to each subscription's first action as an element is (see
// `CapturedElement`).
final class GenerateObservable<State, Element>: Observable<Element>, @unchecked Sendable {
    private let initialState: State
    private let condition: @Sendable (State) throws -> Bool
    private let iterate: @Sendable (State) throws -> State
    private let result: @Sendable (State) throws -> Element
    private let scheduler: any ImmediateSchedulerType

    init(
        initialState: State,
        condition: @escaping @Sendable (State) throws -> Bool,
        iterate: @escaping @Sendable (State) throws -> State,
        result: @escaping @Sendable (State) throws -> Element,
        scheduler: any ImmediateSchedulerType
    ) {
        self.initialState = initialState
        self.condition = condition
        self.iterate = iterate
        self.result = result
        self.scheduler = scheduler
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = GenerateSink(
            condition: condition, iterate: iterate, result: result, scheduler: scheduler, downstream: observer
        )
        sink.schedule(GenerateStep(state: initialState, isFirst: true))
        return sink
    }
}

/// What one action of the loop starts from.
struct GenerateStep<State> {
    let state: State
    /// The initial state, which is tested as it is instead of being iterated first.
    let isFirst: Bool
}

/// Runs the loop one state per scheduled action (`ScheduledActionChain`, so an immediate
/// scheduler runs it in constant stack depth).
// @unchecked Sendable: the pending action and its state live in the chain's LockedState; the
// closures are immutable and `@Sendable`; the rest is the atomic lifecycle.
final class GenerateSink<State, Element>: Sink<Element, Element>, @unchecked Sendable {
    private let condition: @Sendable (State) throws -> Bool
    private let iterate: @Sendable (State) throws -> State
    private let result: @Sendable (State) throws -> Element
    private let scheduler: any ImmediateSchedulerType
    private let actions = ScheduledActionChain<GenerateStep<State>>()

    init(
        condition: @escaping @Sendable (State) throws -> Bool,
        iterate: @escaping @Sendable (State) throws -> State,
        result: @escaping @Sendable (State) throws -> Element,
        scheduler: any ImmediateSchedulerType,
        downstream: ObserverNode<Element>
    ) {
        self.condition = condition
        self.iterate = iterate
        self.result = result
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    /// Schedules the action that runs `step`.
    func schedule(_ step: GenerateStep<State>) {
        actions.request(step, on: scheduler) { [self] step in
            run(step)
        }
    }

    /// One action: computes the state, then emits its element and schedules the next action, or
    /// completes, or fails.
    private func run(_ step: GenerateStep<State>) {
        // Detached: disposed, or downstream has had enough (it may not have disposed this sink
        // yet, when the loop runs inside `subscribe`).
        guard !isDetached else { return }
        do {
            // User code: called without any lock.
            let state = step.isFirst ? step.state : try iterate(step.state)
            guard try condition(state) else {
                forwardCompleted()
                return
            }
            forwardNext(try result(state))
            schedule(GenerateStep(state: state, isFirst: false))
        } catch {
            forwardError(error)
        }
    }

    override func didDispose() {
        actions.cancel()
        super.didDispose()
    }
}
