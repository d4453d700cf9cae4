import { isPageSpacePath, isSafeNextPath, pageRouteOf, signInUrlFor } from './page-routes';

describe('page routes', () => {
  it('names each page and whether it needs a session', () => {
    expect(pageRouteOf('/')).toEqual({ name: 'home', signedIn: true });
    expect(pageRouteOf('/sign-in')).toEqual({ name: 'sign-in', signedIn: false });
    expect(pageRouteOf('/keys')).toEqual({ name: 'keys', signedIn: true });
    expect(pageRouteOf('/apps/a1/apis/new')).toEqual({ name: 'new-api', signedIn: true });
    expect(pageRouteOf('/apps/a1/apis/b2')).toEqual({ name: 'edit-api', signedIn: true });
    expect(pageRouteOf('/apps/a1/sql-apis/new')).toEqual({ name: 'sql-api', signedIn: true });
    expect(pageRouteOf('/apps/a1/sql-apis/s2')).toEqual({ name: 'sql-api', signedIn: true });
    expect(pageRouteOf('/apps/new')).toEqual({ name: 'new-app', signedIn: true });
    expect(pageRouteOf('/apps/a1')).toEqual({ name: 'app', signedIn: true });
    expect(pageRouteOf('/apps/a1/datasources')).toEqual({ name: 'datasources', signedIn: true });
    expect(pageRouteOf('/apps/a1/model')).toEqual({ name: 'model', signedIn: true });
    expect(pageRouteOf('/apps/a1/enums/')).toEqual({ name: 'enums', signedIn: true });
    expect(pageRouteOf('/apps/a1/webhooks')).toEqual({ name: 'webhooks', signedIn: true });
    expect(pageRouteOf('/apps/a1/rows')).toEqual({ name: 'rows', signedIn: true });
    expect(pageRouteOf('/apps/a1/rows/customers')).toEqual({ name: 'rows', signedIn: true });
  });

  it('leaves REST, GraphQL, assets and unknown paths to the rest of the service', () => {
    for (const path of [
      '/api/apps',
      '/api/graphql/demo',
      '/api/apps/a1/apis/b2/test',
      '/assets/index.js',
      '/health',
      '/apps/a1/model/x',
      '/apps/a1/rows/customers/x',
      '/apps/a1/apis/b2/extra',
      '/keys/x',
    ]) {
      expect(pageRouteOf(path)).toBeNull();
    }
  });

  it('sends unknown paths where pages live to the app (its "Page not found"), never REST ones', () => {
    for (const path of ['/apps/a1', '/keys/x', '/nope', '/apis', '/healthz', '/api-docs'])
      expect(isPageSpacePath(path)).toBe(true);
    for (const path of ['/api', '/api/nope', '/api/apps/x', '/health', '/metrics', '/assets/x.js'])
      expect(isPageSpacePath(path)).toBe(false);
  });

  it('sends sign-in on only to paths of this service', () => {
    expect(isSafeNextPath('/keys')).toBe(true);
    expect(isSafeNextPath('/api/apps/a/apis/b/test')).toBe(true);
    for (const bad of ['//evil.test', '/\\evil.test', 'https://evil.test', 'keys', '/a\nb'])
      expect(isSafeNextPath(bad)).toBe(false);
    expect(signInUrlFor('/keys')).toBe('/sign-in?next=%2Fkeys');
    expect(signInUrlFor('/')).toBe('/sign-in');
    expect(signInUrlFor('//evil.test')).toBe('/sign-in');
  });
});
