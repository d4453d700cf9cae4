import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RedisService } from '../redis/redis.service';

/** The operation kind a GraphQL request is counted under (`unknown` before one is selected). */
export type OperationKind = 'query' | 'mutation' | 'subscription' | 'unknown';

/** Who a 429 was answered to. */
export type ThrottledCaller = 'key' | 'anonymous' | 'app-user' | 'login' | 'schema-build';

/** Seconds-based buckets from 1 ms to 10 s (Prometheus convention: durations in seconds). */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The service's Prometheus metrics (CONTRACT.md §8: requests by app, operation kind and status,
 * latency, SQL statements and their duration, schema builds and cache hits, 429s), with
 * `prom-client` on a registry of its own (two apps in one process, as in the tests, never share
 * counters) plus prom-client's default process metrics. Served by `MetricsController`.
 *
 * Labels are bounded: `app` is an app id (only apps that exist), `status` an HTTP status,
 * `dialect` one of the four datasource types.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'tablegraph_graphql_requests_total',
    help: 'GraphQL requests answered, by app id ("-" when no app matched), operation kind and HTTP status',
    labelNames: ['app', 'kind', 'status'] as const,
    registers: [this.registry],
  });
  private readonly requestSeconds = new Histogram({
    name: 'tablegraph_graphql_request_duration_seconds',
    help: 'GraphQL request latency in seconds, by operation kind',
    labelNames: ['kind'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly statementSeconds = new Histogram({
    name: 'tablegraph_sql_statement_duration_seconds',
    help: 'SQL statements run for GraphQL requests and their duration in seconds, by datasource type',
    labelNames: ['dialect'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly schemaHits = new Counter({
    name: 'tablegraph_schema_cache_hits_total',
    help: 'Requests whose schema was already cached (or being built)',
    registers: [this.registry],
  });
  private readonly schemaSeconds = new Histogram({
    name: 'tablegraph_schema_build_duration_seconds',
    help: 'Schemas built (cache misses) and their build time in seconds',
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly throttled = new Counter({
    name: 'tablegraph_rate_limited_total',
    help: 'Requests refused with 429, by caller kind',
    labelNames: ['caller'] as const,
    registers: [this.registry],
  });

  constructor(redis: RedisService) {
    new Gauge({
      name: 'tablegraph_redis_up',
      help: '1 while Redis is reachable, 0 while it is not, -1 when no REDIS_URL is set',
      registers: [this.registry],
      collect() {
        const state = redis.state();
        this.set(state === 'ok' ? 1 : state === 'down' ? 0 : -1);
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /** Counts one answered GraphQL request; `seconds` is its wall time. */
  request(app: string | null, kind: OperationKind, status: number, seconds: number): void {
    this.requests.inc({ app: app ?? '-', kind, status: String(status) });
    this.requestSeconds.observe({ kind }, seconds);
  }

  /** Counts one SQL statement of a datasource type and its duration in seconds. */
  statement(dialect: string, seconds: number): void {
    this.statementSeconds.observe({ dialect }, seconds);
  }

  /** Counts a schema served from the cache. */
  schemaHit(): void {
    this.schemaHits.inc();
  }

  /** Counts a schema built, with its build time in seconds. */
  schemaBuilt(seconds: number): void {
    this.schemaSeconds.observe(seconds);
  }

  /** Counts a 429. */
  rateLimited(caller: ThrottledCaller): void {
    this.throttled.inc({ caller });
  }
}
