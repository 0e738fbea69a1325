import ServiceLifecycle

extension Task where Success == Never, Failure == Never {
    /// Whether a background service's loop goes on: until the server shuts down gracefully, or
    /// until the service's task is cancelled (the server failed to start, a port in use, and the
    /// service group cancels every service). A loop that checked only the graceful shutdown
    /// spun at full speed after a failed start, each `try? await Task.sleep` returning at once.
    public static var serviceGoesOn: Bool { !isShuttingDownGracefully && !isCancelled }
}
