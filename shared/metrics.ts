import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * The service's business and health metrics. A short fixed list and no per-request
 * dimensions: CloudWatch bills each metric (name × dimension values) that receives data, so
 * an idle deployment publishes nothing and a busy one about a dozen.
 */
export type MetricName =
  | 'SecretsCreated'
  | 'SecretsClaimed'
  | 'ClaimsRefused'
  | 'SignIns'
  | 'RateLimited'
  | 'ServerErrors'
  | 'WebhookDeliveries'
  | 'WebhookFailures'
  | 'WebhookEndpointsDisabled'
  /** A verified custom hostname the schedule stopped trying to serve (shared/domain/domains/hosting.ts). */
  | 'CustomHostnamesGivenUp'
  /** A custom hostname taken elsewhere, or a tenant not stopping, for an hour: an operator looks. */
  | 'CustomHostnamesStuck';

/** Counts metrics during an invocation; `flush` publishes them at its end. */
export interface AppMetrics {
  count(name: MetricName, value?: number): void;
  flush(): void;
}

/**
 * Powertools metrics: one CloudWatch embedded-metric-format line per invocation on stdout,
 * which CloudWatch turns into metrics without an API call (so no IAM permission, no latency).
 * Namespace and service come from POWERTOOLS_METRICS_NAMESPACE / POWERTOOLS_SERVICE_NAME.
 */
export class PowertoolsMetrics implements AppMetrics {
  private readonly metrics = new Metrics({ namespace: 'Hushlink', serviceName: 'hushlink' });

  count(name: MetricName, value = 1): void {
    this.metrics.addMetric(name, MetricUnit.Count, value);
  }

  flush(): void {
    // Emits ColdStart on the instance's first invocation only.
    this.metrics.captureColdStartMetric();
    // An invocation that counted nothing writes nothing (no empty-metrics warning line).
    if (this.metrics.hasStoredMetrics()) this.metrics.publishStoredMetrics();
  }
}

/** Totals kept in memory: the local runtime and the tests read them instead of CloudWatch. */
export class CountingMetrics implements AppMetrics {
  readonly totals = new Map<MetricName, number>();
  private pending = new Map<MetricName, number>();

  count(name: MetricName, value = 1): void {
    this.pending.set(name, (this.pending.get(name) ?? 0) + value);
  }

  flush(): void {
    for (const [name, value] of this.pending) this.totals.set(name, (this.totals.get(name) ?? 0) + value);
    this.pending = new Map();
  }

  total(name: MetricName): number {
    return this.totals.get(name) ?? 0;
  }
}
