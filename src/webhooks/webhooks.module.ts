import { Global, Module } from '@nestjs/common';
import { PlatformModule } from '../platform/platform.module';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/**
 * Webhooks (README "Webhooks"): the builder REST, the outbox and the delivery worker. Global so
 * the GraphQL gateway can hand each mutation request a change capture without importing it.
 */
@Global()
@Module({
  imports: [PlatformModule],
  controllers: [WebhooksController],
  providers: [WebhooksService],
  exports: [WebhooksService],
})
export class WebhooksModule {}
