/// Virtual time of a `TestScheduler`, in integer ticks (the scheduler's `resolution` says how many
/// seconds one tick is).
public typealias TestTime = Int
