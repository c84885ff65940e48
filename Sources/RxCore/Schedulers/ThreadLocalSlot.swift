#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A per-thread slot holding a strong reference to an object: the one place that knows the
/// platform's thread-local storage (a POSIX `pthread_key_t`).
///
/// A value still set when its thread exits is released by the key's destructor.
///
/// - Note: Each thread sees only its own value; no locking is needed or done.
final class ThreadLocalSlot<Value: AnyObject>: Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        #if canImport(Darwin)
        let status = pthread_key_create(&key) { pointer in
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
        #else
        let status = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
        #endif
        // Only exhausting the process's keys (PTHREAD_KEYS_MAX, 1024 on Linux) can fail, and this
        // module creates one key for the life of the process.
        precondition(status == 0, "pthread_key_create failed: \(status)")
        self.key = key
    }

    /// This thread's value.
    var value: Value? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<Value>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Sets this thread's value, releasing the previous one.
    func set(_ newValue: Value?) {
        let old = pthread_getspecific(key)
        let pointer = newValue.map { Unmanaged.passRetained($0).toOpaque() }
        pthread_setspecific(key, pointer)
        if let old {
            Unmanaged<Value>.fromOpaque(old).release()
        }
    }
}
