import { DomainError } from '../common/domain-error';
import type { ColumnKind } from '../datasources/core/dialect';
import type { ModelTable } from '../platform/version-definition';
import { choosePrimaryKey } from './data-model.service';
import { isIdColumn, writeActions } from './model-graph';
import { modelColumn } from '../../test/support/model-column';

/** Issue 11: a builder-chosen key for a view or a keyless table; write actions of a view. */

const col = (name: string, kind: ColumnKind = 'int') => modelColumn(name, kind);

function table(primaryKey: string[], extra: Partial<ModelTable> = {}): ModelTable {
  return {
    name: 'film_list',
    dbName: 'film_list',
    schema: 'public',
    datasourceId: 'ds1',
    active: true,
    columns: [col('fid'), col('title', 'text'), col('doc', 'json')],
    primaryKey,
    foreignKeys: [],
    ...extra,
  };
}

/** The refusal `run` throws: its message and details. */
function refusal(run: () => void): { message: string; details: string[] } {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return { message: (e as DomainError).message, details: (e as DomainError).details };
  }
  throw new Error('expected a refusal');
}

describe('choosePrimaryKey', () => {
  it('sets the key on a table without one, marks it chosen, and types its columns ID', () => {
    const t = table([], { readOnly: true });
    choosePrimaryKey(t, ['title', 'fid']);
    expect(t.primaryKey).toEqual(['title', 'fid']);
    expect(t.primaryKeyChosen).toBe(true);
    expect(isIdColumn(t, 'fid')).toBe(true);
  });

  it('replaces a chosen key, and [] removes it (the flag goes too)', () => {
    const t = table(['fid'], { primaryKeyChosen: true });
    choosePrimaryKey(t, ['title']);
    expect(t.primaryKey).toEqual(['title']);
    choosePrimaryKey(t, []);
    expect(t.primaryKey).toEqual([]);
    expect('primaryKeyChosen' in t).toBe(false);
  });

  it('refuses a table whose database declares a key, naming it', () => {
    const t = table(['fid']);
    expect(refusal(() => choosePrimaryKey(t, ['title'])).message).toBe(
      '"film_list" has a primary key declared by its database (fid); only a view or a table without one takes a chosen key',
    );
    expect(t.primaryKey).toEqual(['fid']);
  });

  it('lists every unknown, repeated or JSON column and changes nothing', () => {
    const t = table([]);
    expect(refusal(() => choosePrimaryKey(t, ['nope', 'fid', 'fid', 'doc']))).toEqual({
      message: 'Invalid primary key',
      details: [
        'primaryKey: "film_list" has no column "nope"',
        'primaryKey: "fid" is named more than once',
        'primaryKey: "doc" holds JSON, which cannot order rows',
      ],
    });
    expect(t.primaryKey).toEqual([]);
    expect(t.primaryKeyChosen).toBeUndefined();
  });
});

describe('writeActions', () => {
  it('lists the active write actions in order, never select', () => {
    expect(writeActions({ select: true, insert: false, update: false, delete: false })).toEqual([]);
    expect(writeActions({ select: true, insert: true, update: false, delete: true })).toEqual([
      'insert',
      'delete',
    ]);
  });
});
