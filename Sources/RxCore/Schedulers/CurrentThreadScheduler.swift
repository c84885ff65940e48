/// Runs work on the current thread, trampolined: the first `schedule` on a thread runs its action
/// at once and then, before returning, every action that was scheduled meanwhile on that thread, in
/// order; a `schedule` from inside an action only queues it.
///
/// Recursion thus becomes iteration: an action that schedules itself 100,000 times uses a constant
/// amount of stack. Same semantics as RxSwift's `CurrentThreadScheduler`.
///
/// - Note: Thread-safe: each thread has its own queue (thread-local storage). A queued action runs
///   on the thread that scheduled it, and disposing it before it runs cancels it.
public final class CurrentThreadScheduler: ImmediateSchedulerType {
    /// The shared instance.
    public static let instance = CurrentThreadScheduler()

    private static let queueSlot = ThreadLocalSlot<TrampolineQueue>()

    private init() {}

    /// Whether a `schedule` on this thread would run at once: true unless an action of this
    /// scheduler is already running on this thread.
    public static var isScheduleRequired: Bool {
        queueSlot.value == nil
    }

    /// Runs `action` now if no action of this scheduler runs on this thread, else queues it to run
    /// after the running one (and those queued before it).
    ///
    /// - Returns: What the action returned, if it ran at once; otherwise a disposable that cancels
    ///   the queued action, or disposes what it returned once it has run.
    public func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable) -> Disposable {
        if let queue = Self.queueSlot.value {
            let scheduled = ScheduledAction(state: state, action: action)
            queue.enqueue(scheduled)
            return scheduled
        }
        let queue = TrampolineQueue()
        Self.queueSlot.set(queue)
        defer { Self.queueSlot.set(nil) }
        let disposable = action(state)
        while let next = queue.dequeue() {
            next.run()
        }
        return disposable
    }
}

/// Something the trampoline can run.
protocol TrampolineRunnable: AnyObject {
    /// Runs the work unless it was disposed.
    func run()
}

extension ScheduledAction: TrampolineRunnable {}

/// The actions queued on one thread; only that thread ever touches it.
final class TrampolineQueue {
    private var items: ContiguousArray<TrampolineRunnable?> = []
    private var head = 0

    func enqueue(_ item: TrampolineRunnable) {
        items.append(item)
    }

    func dequeue() -> TrampolineRunnable? {
        guard head < items.count else { return nil }
        let item = items[head]
        items[head] = nil
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1_024 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }
}
