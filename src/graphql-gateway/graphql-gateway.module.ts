import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AppAccessModule } from '../app-access/app-access.module';
import { DataModelModule } from '../data-model/data-model.module';
import { PlatformModule } from '../platform/platform.module';
import { CallerResolverService } from './caller-resolver.service';
import { GraphqlGatewayController } from './graphql-gateway.controller';
import { SchemaProviderService } from './schema-provider.service';

/** The GraphQL endpoint: caller resolution, schema cache, limits, resolvers, DataLoaders. */
@Module({
  imports: [PlatformModule, DataModelModule, ApiKeysModule, AppAccessModule],
  controllers: [GraphqlGatewayController],
  providers: [CallerResolverService, SchemaProviderService],
  exports: [SchemaProviderService],
})
export class GraphqlGatewayModule {}
