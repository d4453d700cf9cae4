import { Controller, Delete, HttpCode, Param, Query } from '@nestjs/common';
import { invalidInput } from '../common/domain-error';
import { RemovalsService } from './removals.service';
import { ApiQuery } from '@nestjs/swagger';
import { ApiRoute } from '../openapi/api-route.decorator';

/** The documented `?force=` query parameter of both removals. */
const ForceQuery = () =>
  ApiQuery({
    name: 'force',
    required: false,
    enum: ['true', 'false'],
    description: '`true` deletes the Table APIs that stand in the way, too',
  });

/**
 * `?force=` as a boolean: absent or `false` → false, `true` → true.
 * @throws DomainError INVALID_INPUT (400) for anything else.
 */
function forceOf(raw: unknown): boolean {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw invalidInput('Invalid query', ['force must be true or false']);
}

/** Deleting apps and datasources (CONTRACT.md §3); builders and administrators. */
@Controller('api/apps/:appId')
export class RemovalsController {
  constructor(private readonly removals: RemovalsService) {}

  /**
   * `DELETE /api/apps/:appId[?force=true]` → `204`; `409` while the app has Table APIs, unless
   * `force`.
   */
  @ApiRoute({
    summary: 'Delete an app',
    description:
      'With its versions, datasources, app users and row rules; keys lose it from their scope. `409` while it has Table APIs, unless `force=true`.',
    ok: { status: 204, description: 'Deleted' },
    errors: [400, 404, 409],
  })
  @ForceQuery()
  @Delete()
  @HttpCode(204)
  deleteApp(@Param('appId') appId: string, @Query('force') force: unknown): Promise<void> {
    return this.removals.deleteApp(appId, forceOf(force));
  }

  /**
   * `DELETE /api/apps/:appId/datasources/:dsId[?force=true]` → `204`; `409` while a Table API
   * uses one of its tables, unless `force` (which deletes those APIs too).
   */
  @ApiRoute({
    summary: 'Delete a datasource',
    description:
      'Its tables leave every version. `409` while a Table API uses one of them, unless `force=true` (which deletes those APIs too).',
    ok: { status: 204, description: 'Deleted' },
    errors: [400, 404, 409],
  })
  @ForceQuery()
  @Delete('datasources/:dsId')
  @HttpCode(204)
  deleteDatasource(
    @Param('appId') appId: string,
    @Param('dsId') dsId: string,
    @Query('force') force: unknown,
  ): Promise<void> {
    return this.removals.deleteDatasource(appId, dsId, forceOf(force));
  }
}
