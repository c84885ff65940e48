/// Runs every action at once, on the caller's thread.
///
/// - Note: Thread-safe; it keeps no state.
public struct ImmediateScheduler: ImmediateSchedulerType {
    /// The shared instance.
    public static let instance = ImmediateScheduler()

    /// Creates a scheduler; prefer `instance`.
    public init() {}

    public func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable) -> Disposable {
        action(state)
    }
}
