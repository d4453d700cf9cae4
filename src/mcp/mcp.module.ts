import { Module } from '@nestjs/common';
import { GraphqlGatewayModule } from '../graphql-gateway/graphql-gateway.module';
import { PlatformModule } from '../platform/platform.module';
import { McpController } from './mcp.controller';
import { McpEndpoint } from './mcp-endpoint';

/**
 * The MCP endpoint per app (issue 28 item 3, CONTRACT.md §11 "Agents"): `POST /api/mcp/:address`,
 * seven fixed tools whose calls run as GraphQL operations through the gateway's request steps.
 */
@Module({
  imports: [PlatformModule, GraphqlGatewayModule],
  controllers: [McpController],
  providers: [McpEndpoint],
})
export class McpModule {}
