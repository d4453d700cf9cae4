import { All, Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { ParsedRequest } from '../common/http-request';
import { Access } from '../platform/access.decorator';
import { McpEndpoint } from './mcp-endpoint';

/**
 * `POST /api/mcp/:address`: the app's MCP endpoint ({@link McpEndpoint}). Public to the platform
 * guard: the endpoint authenticates its own callers (`x-api-key` only). Stateless, so there is no
 * stream to open with GET nor session to end with DELETE: other methods answer `405` with
 * `allow: POST` (MCP streamable HTTP allows a server without the GET stream to answer 405).
 */
@ApiExcludeController()
@Controller('api/mcp')
@Access('public')
export class McpController {
  constructor(private readonly mcp: McpEndpoint) {}

  /** One MCP message (JSON-RPC request or notification) in, its answer out. */
  @Post(':address')
  async post(
    @Param('address') address: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.mcp.serve(req as unknown as ParsedRequest, res, address);
  }

  /** Any other method: 405. */
  @All(':address')
  @HttpCode(405)
  other(@Res() res: Response): void {
    res.setHeader('allow', 'POST');
    res.status(405).json({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'The MCP endpoint is stateless: send messages with POST' },
    });
  }
}
