extension DisposeBag {
    /// Gathers the disposables listed in a `DisposeBag { ... }` or `bag.insert { ... }` block, one per
    /// line, as RxSwift's `DisposableBuilder` does; `if`, `if`/`else` and `for` blocks work too.
    @resultBuilder
    public enum DisposableBuilder {
        /// One listed disposable.
        public static func buildExpression(_ disposable: Disposable) -> [Disposable] {
            [disposable]
        }

        /// The disposables of a block, in order.
        public static func buildBlock(_ components: [Disposable]...) -> [Disposable] {
            components.flatMap { $0 }
        }

        /// An `if` without `else`: its disposables, or none.
        public static func buildOptional(_ component: [Disposable]?) -> [Disposable] {
            component ?? []
        }

        /// The `if` branch of an `if`/`else`.
        public static func buildEither(first component: [Disposable]) -> [Disposable] {
            component
        }

        /// The `else` branch of an `if`/`else`.
        public static func buildEither(second component: [Disposable]) -> [Disposable] {
            component
        }

        /// A `for` loop: the disposables of every iteration, in order.
        public static func buildArray(_ components: [[Disposable]]) -> [Disposable] {
            components.flatMap { $0 }
        }
    }

    /// Creates a bag holding `disposables`.
    ///
    /// - Parameter disposables: Disposed, in this order, when the bag is deallocated.
    public convenience init(disposing disposables: Disposable...) {
        self.init(disposing: disposables)
    }

    /// Creates a bag holding `disposables`.
    ///
    /// - Parameter disposables: Disposed, in this order, when the bag is deallocated.
    public convenience init(disposing disposables: [Disposable]) {
        self.init()
        insert(disposables)
    }

    /// Creates a bag holding the disposables listed in `builder`, one per line.
    ///
    /// - Parameter builder: Runs once, at once, on the calling thread.
    public convenience init(@DisposableBuilder builder: () -> [Disposable]) {
        self.init(disposing: builder())
    }

    /// Adds the disposables listed in `builder`, one per line.
    ///
    /// - Parameter builder: Runs once, at once, on the calling thread.
    /// - Note: Thread-safe.
    public func insert(@DisposableBuilder builder: () -> [Disposable]) {
        insert(builder())
    }
}
