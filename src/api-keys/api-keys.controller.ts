import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { Access } from '../platform/access.decorator';
import { ApiKeysService, ApiKeyView } from './api-keys.service';
import { CreateApiKeyDto } from './dto/api-key.dto';

/** API key administration (CONTRACT.md §5); administrators only. */
@Controller('api/admin/api-keys')
@Access('admin')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  /** `POST /api/admin/api-keys` → `201` with `key`, shown this once. */
  @Post()
  create(@Body() body: CreateApiKeyDto): Promise<ApiKeyView & { key: string }> {
    return this.keys.create(body);
  }

  /** `GET /api/admin/api-keys`: prefixes only. */
  @Get()
  list(): Promise<ApiKeyView[]> {
    return this.keys.list();
  }

  /** `POST /api/admin/api-keys/:id/revoke` → `{status: "revoked"}`. */
  @Post(':id/revoke')
  @HttpCode(200)
  revoke(@Param('id') id: string): Promise<{ status: 'revoked' }> {
    return this.keys.revoke(id);
  }
}
