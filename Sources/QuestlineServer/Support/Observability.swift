import Logging
import Metrics
import Prometheus

/// Process-wide metrics: the Prometheus registry behind swift-metrics, bootstrapped once
/// (swift-metrics allows one bootstrap per process; tests build many applications).
enum Observability {
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()
}
