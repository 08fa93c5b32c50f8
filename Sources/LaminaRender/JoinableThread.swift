#if canImport(Glibc)
import Glibc
#endif

/// A dedicated OS thread that can be joined, so shutdown waits until the thread has fully
/// exited, thread-local destructors included (Foundation's `Thread` cannot be joined, and a
/// process that exits while a thread that used the Vulkan driver is still unwinding can crash
/// in the driver's thread-local destructors).
public final class JoinableThread: @unchecked Sendable {
    // @unchecked: `raw` is written once in init and read only by `join`, which callers make
    // once, after init.
    private var raw: pthread_t
    private var joined = false

    /// Starts `body` on a new thread named `name` (at most 15 bytes are kept) with a 64 MiB
    /// stack (address space; pages are committed as used). Drawing and hit testing recurse
    /// once per nesting level: at `DaemonConfig.maxDepthLimit` levels an unoptimized build
    /// needs about 10 MiB, an optimized one about a quarter of that.
    public init(name: String, _ body: @escaping @Sendable () -> Void) {
        final class Box { let body: @Sendable () -> Void; let name: String; init(_ b: @escaping @Sendable () -> Void, _ n: String) { body = b; name = n } }
        let box = Unmanaged.passRetained(Box(body, name)).toOpaque()
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        pthread_attr_setstacksize(&attr, 64 << 20)
        var thread = pthread_t()
        let rc = pthread_create(&thread, &attr, { arg in
            let box = Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue()
            _ = setThreadName(pthread_self(), String(box.name.prefix(15)))
            box.body()
            return nil
        }, box)
        pthread_attr_destroy(&attr)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        raw = thread
    }

    /// Waits until the thread has exited. Call once, from another thread.
    public func join() {
        precondition(!joined, "a thread is joined once")
        joined = true
        pthread_join(raw, nil)
    }
}

/// glibc's `pthread_setname_np`, declared only under _GNU_SOURCE, which the Glibc module does not set.
@_silgen_name("pthread_setname_np")
private func setThreadName(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> Int32
