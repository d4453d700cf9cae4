import { Module } from '@nestjs/common';
import { GraphqlGatewayModule } from '../graphql-gateway/graphql-gateway.module';
import { PlatformModule } from '../platform/platform.module';
import { ChangeFeedService } from './change-feed.service';
import { SubscriptionsServer } from './subscriptions-server';

/**
 * GraphQL subscriptions (README "Subscriptions"): the change feed shared with the webhooks'
 * capture, and the graphql-ws server that `createApp` attaches to the HTTP server.
 */
@Module({
  imports: [GraphqlGatewayModule, PlatformModule],
  providers: [ChangeFeedService, SubscriptionsServer],
  exports: [SubscriptionsServer, ChangeFeedService],
})
export class SubscriptionsModule {}
