import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { AppAccessModule } from './app-access/app-access.module';
import type { AppConfig, LogLevel } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DataModelModule } from './data-model/data-model.module';
import { DatasourcesModule } from './datasources/datasources.module';
import { DemoModule } from './demo/demo.module';
import { EnumsModule } from './enums/enums.module';
import { EventsModule } from './events/events.module';
import { GraphqlGatewayModule } from './graphql-gateway/graphql-gateway.module';
import { HealthModule } from './health/health.module';
import { loggerModule } from './logging/logging';
import { McpModule } from './mcp/mcp.module';
import { MetricsModule } from './metrics/metrics.module';
import { metadataStoreOptions } from './metadata-store';
import { PagesModule } from './pages/pages.module';
import { PlatformModule } from './platform/platform.module';
import { RateLimitsModule } from './rate-limits/rate-limits.module';
import { RemovalsModule } from './removals/removals.module';
import { RedisModule } from './redis/redis.module';
import { SqlApisModule } from './sql-apis/sql-apis.module';
import { SubscriptionsModule } from './subscriptions/subscriptions.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { TableApisModule } from './table-apis/table-apis.module';

/** The whole service, for a validated configuration; `logLevel` overrides the configured one. */
@Module({})
export class AppModule {
  static forRoot(
    config: AppConfig,
    logLevel: LogLevel = config.operations.logLevel,
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        loggerModule(logLevel),
        RedisModule,
        MetricsModule,
        RateLimitsModule,
        TypeOrmModule.forRoot(metadataStoreOptions(config.metadataStore)),
        EventsModule,
        PlatformModule,
        DatasourcesModule,
        DataModelModule,
        EnumsModule,
        TableApisModule,
        SqlApisModule,
        WebhooksModule,
        ApiKeysModule,
        AppAccessModule,
        RemovalsModule,
        GraphqlGatewayModule,
        SubscriptionsModule,
        McpModule,
        HealthModule,
        DemoModule,
        PagesModule,
      ],
    };
  }
}
