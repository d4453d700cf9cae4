import { isUnavailable, isUnpopulatedMaterializedView } from './pool';

/** The error node-postgres gives for `SELECT` on a materialized view created `WITH NO DATA`. */
const UNPOPULATED = Object.assign(
  new Error('materialized view "rental_by_category" has not been populated'),
  {
    code: '55000',
    hint: 'Use the REFRESH MATERIALIZED VIEW command.',
    routine: 'ExecOpenScanRelation',
    file: 'execUtils.c',
  },
);

describe('isUnpopulatedMaterializedView', () => {
  it('recognises a materialized view never refreshed by its SQLSTATE and server routine', () => {
    expect(isUnpopulatedMaterializedView(UNPOPULATED)).toBe(true);
  });

  it('recognises it whatever language the server writes its messages in', () => {
    const german = Object.assign(new Error('materialisierte Sicht »m« wurde noch nicht befüllt'), {
      code: '55000',
      routine: 'ExecOpenScanRelation',
    });
    expect(isUnpopulatedMaterializedView(german)).toBe(true);
  });

  it('leaves other errors of the same SQLSTATE alone', () => {
    const lastval = Object.assign(new Error('lastval is not yet defined in this session'), {
      code: '55000',
      routine: 'lastval',
    });
    expect(isUnpopulatedMaterializedView(lastval)).toBe(false);
    expect(isUnpopulatedMaterializedView(new Error('boom'))).toBe(false);
  });

  it('is not taken for a database that is down', () => {
    expect(isUnavailable(UNPOPULATED)).toBe(false);
  });
});
