import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { Access } from '../platform/access.decorator';
import { ApiKeysService, ApiKeyView } from './api-keys.service';
import { CreateApiKeyDto } from './dto/api-key.dto';
import { ApiRoute } from '../openapi/api-route.decorator';

/** API key administration (CONTRACT.md §5); administrators only. */
@Controller('api/admin/api-keys')
@Access('admin')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  /** `POST /api/admin/api-keys` → `201` with `key`, shown this once. */
  @ApiRoute({
    summary: 'Create an API key',
    description: 'The answer holds the whole key, shown this once.',
    ok: { status: 201, description: 'The key', schema: 'CreatedApiKey' },
    errors: [400, 404, 415],
    access: 'admin',
  })
  @Post()
  create(@Body() body: CreateApiKeyDto): Promise<ApiKeyView & { key: string }> {
    return this.keys.create(body);
  }

  /** `GET /api/admin/api-keys`: prefixes only. */
  @ApiRoute({
    summary: 'List API keys',
    description: 'Prefixes only, never a key or its hash.',
    ok: { description: 'Keys', schema: ['ApiKey'] },
    errors: [],
    access: 'admin',
  })
  @Get()
  list(): Promise<ApiKeyView[]> {
    return this.keys.list();
  }

  /** `POST /api/admin/api-keys/:id/revoke` → `{status: "revoked"}`. */
  @ApiRoute({
    summary: 'Revoke an API key',
    description: 'Refused from the next request on every instance; there is no way back.',
    ok: { description: 'Revoked', schema: 'Revoked' },
    errors: [404],
    access: 'admin',
  })
  @Post(':id/revoke')
  @HttpCode(200)
  revoke(@Param('id') id: string): Promise<{ status: 'revoked' }> {
    return this.keys.revoke(id);
  }
}
