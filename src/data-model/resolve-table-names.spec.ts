import { resolveTableNames } from './data-model.service';

describe('resolveTableNames', () => {
  const available = [
    { schema: 'public', name: 'customers' },
    { schema: 'sales', name: 'customers' },
    { schema: 'sales', name: 'orders' },
    { schema: 'a', name: 'logs' },
    { schema: 'b', name: 'logs' },
  ];

  it('takes schema.table exactly and a bare name by name', () => {
    expect(resolveTableNames(['sales.customers', 'orders'], available)).toEqual({
      refs: [
        { schema: 'sales', name: 'customers' },
        { schema: 'sales', name: 'orders' },
      ],
      problems: [],
    });
  });

  it('prefers the default schema when several schemas hold the name', () => {
    expect(resolveTableNames(['customers'], available).refs).toEqual([
      { schema: 'public', name: 'customers' },
    ]);
  });

  it('lists every name that matches nothing or is ambiguous', () => {
    expect(resolveTableNames(['nope', 'logs', 'x.orders'], available).problems).toEqual([
      'no table "nope"',
      '"logs" is in several schemas; name one: a.logs, b.logs',
      'no table "x.orders"',
    ]);
  });

  it('accepts SQLite tables with or without main.', () => {
    const sqlite = [{ schema: null, name: 'orders' }];
    expect(resolveTableNames(['orders', 'main.orders'], sqlite).refs).toEqual([
      sqlite[0],
      sqlite[0],
    ]);
  });
});
