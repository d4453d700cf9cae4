import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AppAccessModule } from '../app-access/app-access.module';
import { DataModelModule } from '../data-model/data-model.module';
import { PlatformModule } from '../platform/platform.module';
import { CallerResolverService } from './caller-resolver.service';
import { GraphqlHttpEndpoint } from './graphql-http-endpoint';
import { SchemaProviderService } from './schema-provider.service';

/**
 * The GraphQL endpoint: caller resolution, schema cache, limits, resolvers, DataLoaders. Its HTTP
 * handler is an Express middleware `createApp` installs first, not a controller (ADR 0009).
 */
@Module({
  imports: [PlatformModule, DataModelModule, ApiKeysModule, AppAccessModule],
  providers: [CallerResolverService, SchemaProviderService, GraphqlHttpEndpoint],
  exports: [SchemaProviderService, GraphqlHttpEndpoint],
})
export class GraphqlGatewayModule {}
