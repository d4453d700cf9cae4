import { DomainError, ErrorCode } from '../common/domain-error';
import type {
  ApiActions,
  ModelTable,
  TableApiDefinition,
  VersionDefinition,
} from '../platform/version-definition';
import type { VersionsService } from '../platform/versions.service';
import { modelColumn } from '../../test/support/model-column';
import { noKeyProblem, TableApisService } from './table-apis.service';

/**
 * Issue 22 item 22: update and delete address a row by its primary key, so a Table API over a
 * table without one cannot switch them on; it is refused when saved, saying why.
 */

const SELECT_ONLY: ApiActions = { select: true, insert: false, update: false, delete: false };
const EVERY_ACTION: ApiActions = { select: true, insert: true, update: true, delete: true };

function table(name: string, primaryKey: string[], extra: Partial<ModelTable> = {}): ModelTable {
  return {
    name,
    dbName: name,
    schema: 'public',
    datasourceId: 'ds1',
    active: true,
    columns: [modelColumn('id'), modelColumn('body', 'text')],
    primaryKey,
    foreignKeys: [],
    ...extra,
  };
}

/** A service over one in-memory definition, as `VersionsService.edit` hands it over. */
function serviceOver(def: VersionDefinition): TableApisService {
  const versions = {
    edit: async <T>(_app: string, _account: string, change: (d: VersionDefinition) => T) =>
      change(def),
  } as unknown as VersionsService;
  return new TableApisService(versions);
}

function definition(): VersionDefinition {
  return {
    tables: [
      table('events', []),
      table('notes', ['id']),
      table('event_list', [], { readOnly: true }),
    ],
    enums: [],
    apis: [],
  } as unknown as VersionDefinition;
}

async function refusal(run: () => Promise<unknown>): Promise<DomainError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a refusal');
}

describe('noKeyProblem', () => {
  it('names the table, the actions and the way out when update or delete is on without a key', () => {
    expect(noKeyProblem(table('events', []), EVERY_ACTION)).toBe(
      'actions: "events" has no primary key, so update and delete cannot address a row; switch off update, delete, or first name its key columns (PATCH /api/apps/:appId/model/tables/events {"primaryKey": [...]})',
    );
    expect(noKeyProblem(table('events', []), { ...SELECT_ONLY, delete: true })).toContain(
      'so delete cannot address a row; switch off delete,',
    );
  });

  it('has nothing against select and insert, a table with a key, or a view (refused as one)', () => {
    expect(noKeyProblem(table('events', []), { ...SELECT_ONLY, insert: true })).toBeNull();
    expect(noKeyProblem(table('notes', ['id']), EVERY_ACTION)).toBeNull();
    expect(
      noKeyProblem(table('events', ['id'], { primaryKeyChosen: true }), EVERY_ACTION),
    ).toBeNull();
    expect(noKeyProblem(table('event_list', [], { readOnly: true }), EVERY_ACTION)).toBeNull();
    expect(noKeyProblem(undefined, EVERY_ACTION)).toBeNull();
  });
});

describe('TableApisService without a primary key', () => {
  it('refuses to create an API that updates or deletes rows of a keyless table (400, saying why)', async () => {
    const def = definition();
    const service = serviceOver(def);
    const refused = await refusal(() =>
      service.create('app', 'me', { name: 'events', table: 'events', actions: EVERY_ACTION }),
    );
    expect(refused.code).toBe(ErrorCode.InvalidInput);
    expect(refused.message).toBe(
      'Table "events" has no primary key: update and delete are not possible',
    );
    expect(refused.details[0]).toContain('"events" has no primary key');
    expect(def.apis).toEqual([]);
    const created = await service.create('app', 'me', {
      name: 'events',
      table: 'events',
      actions: { ...SELECT_ONLY, insert: true },
    });
    expect(created.actions).toEqual({ ...SELECT_ONLY, insert: true });
  });

  it('refuses switching update or delete on later, and publishing an API saved with one', async () => {
    const def = definition();
    const service = serviceOver(def);
    const api = await service.create('app', 'me', {
      name: 'events',
      table: 'events',
      actions: SELECT_ONLY,
    });
    const refused = await refusal(() =>
      service.update('app', 'me', api.id, { actions: { ...SELECT_ONLY, update: true } }),
    );
    expect(refused.message).toBe(
      'Table "events" has no primary key: update and delete are not possible',
    );
    expect(def.apis[0].actions).toEqual(SELECT_ONLY);
    // Saved before the rule, or the key removed since: publishing says why.
    (def.apis[0] as TableApiDefinition).actions = { ...SELECT_ONLY, delete: true };
    const unpublished = await refusal(() => service.publish('app', 'me', api.id));
    expect(unpublished.message).toBe(
      'Table "events" has no primary key: update and delete are not possible',
    );
    expect(def.apis[0].status).toBe('draft');
  });

  it('takes update and delete once the table has a key, declared or chosen', async () => {
    const def = definition();
    const service = serviceOver(def);
    await service.create('app', 'me', { name: 'notes', table: 'notes', actions: EVERY_ACTION });
    def.tables[0].primaryKey = ['id'];
    def.tables[0].primaryKeyChosen = true;
    const api = await service.create('app', 'me', {
      name: 'events',
      table: 'events',
      actions: EVERY_ACTION,
    });
    expect((await service.publish('app', 'me', api.id)).status).toBe('published');
  });

  it('still refuses a view by its own rule', async () => {
    const refused = await refusal(() =>
      serviceOver(definition()).create('app', 'me', {
        name: 'eventList',
        table: 'event_list',
        actions: EVERY_ACTION,
      }),
    );
    expect(refused.message).toBe('Table "event_list" is a view: only select is possible');
  });
});
