import {
  ApolloClient,
  ApolloLink,
  CombinedGraphQLErrors,
  gql,
  HttpLink,
  InMemoryCache,
} from '@apollo/client';
import { ErrorLink } from '@apollo/client/link/error';
import { cacheExchange, Client, CombinedError, fetchExchange } from '@urql/core';
import Database from 'better-sqlite3';
import { ClientError, GraphQLClient } from 'graphql-request';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInThisContext } from 'node:vm';
import { DemoService } from '../../src/demo/demo.service';
import type { CachePolicies } from '../../src/graphql-gateway/cache-policies';
import { RunningApp, startApp } from '../support/app-harness';
import { placeSqliteFile } from '../support/sqlite-placement';

/**
 * Issue 21 item 3, "Real clients in the suite": Apollo Client 4 (its default `InMemoryCache`,
 * configured by the README's two lines, read from README.md and run as they are), urql core and
 * graphql-request read and write through the real service over HTTP, with variables, fragments
 * and aliases, and read its refusals and 429s as each exposes them. The app is the demo (seeded
 * by the service's own `DemoService`, as `DEMO=1` does) plus a Chinook-like SQLite datasource
 * whose keys are not named `id` (`artist.artist_id`, `album.album_id`), added through the
 * builder REST API. The cache policies route (`GET /api/graphql/:address/cache-policies`) is
 * checked first, as an integration reads it.
 */

const ALL = { select: true, insert: true, update: true, delete: true };

/** Chinook's first artists and albums, keyed as the PostgreSQL port of Chinook keys them. */
const MUSIC = `
  CREATE TABLE artist (artist_id INTEGER PRIMARY KEY, name VARCHAR(120) NOT NULL);
  CREATE TABLE album (album_id INTEGER PRIMARY KEY, title VARCHAR(160) NOT NULL,
    artist_id INTEGER NOT NULL REFERENCES artist(artist_id));
  INSERT INTO artist VALUES (1, 'AC/DC'), (2, 'Accept'), (3, 'Aerosmith');
  INSERT INTO album VALUES (1, 'For Those About To Rock We Salute You', 1), (2, 'Balls to the Wall', 2),
    (3, 'Restless and Wild', 2), (4, 'Let There Be Rock', 1), (5, 'Big Ones', 3);`;

/**
 * The README's Apollo cache setup: the two lines of its Apollo example that fetch the cache
 * policies and build the `InMemoryCache`, exactly as printed.
 */
function readmeCacheSetup(): string[] {
  const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8').split('\n');
  const lines = readme.filter(
    (line) =>
      line.startsWith('const { possibleTypes, typePolicies, entities } = await ') ||
      line.startsWith('const cache = new InMemoryCache('),
  );
  expect(lines).toHaveLength(2);
  return lines;
}

describe('Real GraphQL clients against the demo app (issue 21 item 3)', () => {
  let run: RunningApp;
  let token: string;
  let appId: string;
  /** The demo's key (every API, the default rate limit). */
  let key: string;
  let url: string;
  const apiIds: Record<string, string> = {};

  /** A new key on the demo app; `rateLimitPerMinute` 1 makes its second request a 429. */
  const newKey = async (body: Record<string, unknown> = {}) => {
    const res = await run.http('POST', '/api/admin/api-keys', {
      token,
      body: { name: 'client', scope: [{ appId, endpoints: 'all' }], ...body },
    });
    expect(res.status).toBe(201);
    return res.body.key as string;
  };

  /** GraphQL over plain fetch, for reading what the service holds (never a client's cache). */
  const server = async (query: string, variables?: Record<string, unknown>) => {
    const res = await run.http('POST', '/api/graphql/demo', {
      body: { query, variables },
      headers: { 'x-api-key': key },
    });
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  };

  /** The cache built by the README's two lines, run with its `BASE` and `KEY`. */
  const readmeCache = async (): Promise<InMemoryCache> => {
    const setup = runInThisContext(
      `(async (process, InMemoryCache) => {\n${readmeCacheSetup().join('\n')}\nreturn cache;\n})`,
    ) as (process: unknown, cache: typeof InMemoryCache) => Promise<InMemoryCache>;
    return setup({ env: { BASE: run.baseUrl, KEY: key } }, InMemoryCache);
  };

  beforeAll(async () => {
    run = await startApp();
    token = await run.adminToken();
    const demo = await run.app.get(DemoService).seedIfEmpty();
    if (!demo) throw new Error('the demo was not seeded');
    key = demo.key;
    url = `${run.baseUrl}/api/graphql/demo`;
    appId = (await run.http('GET', '/api/apps', { token })).body.find(
      (a: { address: string }) => a.address === 'demo',
    ).id;
    for (const api of (await run.http('GET', `/api/apps/${appId}/apis`, { token })).body) {
      apiIds[api.name] = api.id;
    }
    // Chinook's artists and albums, beside the demo's tables.
    const db = new Database(join(run.dataDir, 'datasources', 'music.db'));
    db.exec(MUSIC);
    db.close();
    const ds = await run.http('POST', `/api/apps/${appId}/datasources`, {
      token,
      body: {
        name: 'music',
        type: 'sqlite',
        url: placeSqliteFile(run.dataDir, appId, 'sqlite:music.db'),
      },
    });
    expect(ds.status).toBe(201);
    const imported = await run.http('POST', `/api/apps/${appId}/model/import`, {
      token,
      body: { datasourceId: ds.body.id, tables: ['artist', 'album'] },
    });
    expect(imported.status).toBe(201);
    const apis = [
      // Root `Albums`; its artist is the nested `Artist`.
      {
        name: 'albums',
        table: 'album',
        fields: {
          album_id: true,
          title: true,
          artist_id: true,
          artist: { artist_id: true, name: true },
        },
      },
      // Root `Artists`; their albums are the nested `Album`.
      {
        name: 'artists',
        table: 'artist',
        fields: { artist_id: true, name: true, album: { album_id: true, title: true } },
      },
    ];
    for (const spec of apis) {
      const api = await run.http('POST', `/api/apps/${appId}/apis`, {
        token,
        body: { ...spec, actions: ALL },
      });
      expect(api.status).toBe(201);
      apiIds[spec.name] = api.body.id;
      expect(
        (await run.http('POST', `/api/apps/${appId}/apis/${api.body.id}/publish`, { token }))
          .status,
      ).toBe(200);
    }
    expect((await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status).toBe(
      200,
    );
  });

  afterAll(async () => {
    await run?.close();
  });

  describe('GET /api/graphql/:address/cache-policies', () => {
    it("answers the caller's schema's cache configuration in Apollo Client's shapes", async () => {
      const res = await run.http<CachePolicies>('GET', '/api/graphql/demo/cache-policies', {
        headers: { 'x-api-key': key },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const { possibleTypes, typePolicies, entities } = res.body;
      // The demo's customers at the root, and nested in an order with other fields.
      expect(typePolicies.Customers).toEqual({ keyFields: ['id'] });
      expect(typePolicies.Customers_2).toEqual({ keyFields: ['id'] });
      expect(entities.Customers).toBe('Customers');
      expect(entities.Customers_2).toBe('Customers');
      expect(possibleTypes.Customers).toEqual(['Customers_2']);
      expect(possibleTypes.Customers_2).toEqual(['Customers']);
      // Keys not named `id`: root and nested types of one table share one entity.
      expect(typePolicies).toMatchObject({
        Albums: { keyFields: ['album_id'] },
        Album: { keyFields: ['album_id'] },
        Artists: { keyFields: ['artist_id'] },
        Artist: { keyFields: ['artist_id'] },
      });
      expect(entities).toMatchObject({
        Albums: 'Album',
        Album: 'Album',
        Artists: 'Artist',
        Artist: 'Artist',
      });
      // Every row type of the schema has a policy; every identified one an entity.
      const introspection = await server('{ __schema { types { name kind } } }');
      const rowTypes = introspection.__schema.types
        .filter(
          (t: { name: string; kind: string }) =>
            t.kind === 'OBJECT' &&
            !t.name.startsWith('__') &&
            !/^(Query|Mutation|Subscription)$/.test(t.name) &&
            // What addMany, updateMany, deleteMany and the upserts answer holds rows but is none,
            // nor is a subscription's change (`<Base>Change`, README "Subscriptions").
            !/(AddMany|UpdateMany|DeleteMany|Upsert)Result$|UpsertRow$|Change$/.test(t.name),
        )
        .map((t: { name: string }) => t.name)
        .sort();
      expect(Object.keys(typePolicies).sort()).toEqual(rowTypes);
      // The demo's order lines show their product without its key: never one shared object.
      expect(typePolicies.Products_3).toEqual({ keyFields: false });
      expect(Object.keys(entities).sort()).toEqual(
        rowTypes.filter((t: string) => t !== 'Products_3'),
      );
    });

    it('answers only the types of the APIs a key may call', async () => {
      const albumsOnly = await newKey({ scope: [{ appId, endpoints: [apiIds.albums] }] });
      const res = await run.http('GET', '/api/graphql/demo/cache-policies', {
        headers: { 'x-api-key': albumsOnly },
      });
      expect(res.body).toEqual({
        possibleTypes: {},
        typePolicies: { Albums: { keyFields: ['album_id'] }, Artist: { keyFields: ['artist_id'] } },
        entities: { Albums: 'Album', Artist: 'Artist' },
      });
    });

    it('refuses as the GraphQL endpoint does, in the same steps', async () => {
      const get = (path: string, headers: Record<string, string> = {}) =>
        run.http('GET', path, { headers });
      const code = (res: { body: { errors: { extensions: { code: string } }[] } }) =>
        res.body.errors[0].extensions.code;
      const unknownApp = await get('/api/graphql/nowhere/cache-policies', { 'x-api-key': key });
      expect([unknownApp.status, code(unknownApp)]).toEqual([404, 'NOT_FOUND']);
      const badKey = await get('/api/graphql/demo/cache-policies', { 'x-api-key': 'tg_nope' });
      expect([badKey.status, code(badKey)]).toEqual([401, 'UNAUTHENTICATED']);
      const inUrl = await get(`/api/graphql/demo/cache-policies?api_key=${key}`);
      expect([inUrl.status, code(inUrl)]).toEqual([400, 'BAD_USER_INPUT']);
      expect(JSON.stringify(inUrl.body)).not.toContain(key);
      const post = await run.http('POST', '/api/graphql/demo/cache-policies', {
        body: {},
        headers: { 'x-api-key': key },
      });
      expect([post.status, post.headers.get('allow'), code(post)]).toEqual([
        405,
        'GET',
        'BAD_REQUEST',
      ]);
      const head = await run.http('HEAD', '/api/graphql/demo/cache-policies', {
        headers: { 'x-api-key': key },
      });
      expect([head.status, head.headers.get('content-type'), head.body]).toEqual([
        200,
        'application/json; charset=utf-8',
        null,
      ]);
      // Anonymous callers see the public operations: the demo has none.
      expect((await get('/api/graphql/demo/cache-policies')).body).toEqual({
        possibleTypes: {},
        typePolicies: {},
        entities: {},
      });
      // A builder's session reads the working version's.
      const builder = await run.http('GET', '/api/graphql/demo/cache-policies', { token });
      expect(builder.body.entities.Customers_2).toBe('Customers');
      // Counted against the key's rate limit like any request of it.
      const limited = await newKey({ rateLimitPerMinute: 1 });
      expect((await get('/api/graphql/demo/cache-policies', { 'x-api-key': limited })).status).toBe(
        200,
      );
      const second = await get('/api/graphql/demo/cache-policies', { 'x-api-key': limited });
      expect([second.status, code(second)]).toEqual([429, 'RATE_LIMITED']);
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    });

    it('leaves /api/graphql/cache-policies to the app whose address is cache-policies', async () => {
      const created = await run.http('POST', '/api/apps', {
        token,
        body: { name: 'Named like the route', address: 'cache-policies' },
      });
      expect(created.status).toBe(201);
      const endpoint = await run.http('GET', '/api/graphql/cache-policies?query={__typename}', {
        token,
      });
      expect([endpoint.status, endpoint.body]).toEqual([200, { data: { __typename: 'Query' } }]);
      const policies = await run.http('GET', '/api/graphql/cache-policies/cache-policies', {
        token,
      });
      expect(policies.body).toEqual({ possibleTypes: {}, typePolicies: {}, entities: {} });
    });
  });

  describe('Apollo Client 4, its InMemoryCache configured by the README', () => {
    const client = (cache: InMemoryCache, link?: ApolloLink) =>
      new ApolloClient({
        link: ApolloLink.from([
          ...(link ? [link] : []),
          new HttpLink({ uri: url, headers: { 'x-api-key': key } }),
        ]),
        cache,
      });

    const ORDERS = gql`
      query RecentOrders($take: Int!) {
        recent: getOrders(take: $take, order: [{ id: ASC }]) {
          id
          status
          buyer: customer {
            ...Buyer
          }
        }
      }
      fragment Buyer on Customers_2 {
        id
        name
        city
      }
    `;
    const RENAME = gql`
      mutation Rename($id: ID!, $name: String!) {
        renamed: updateCustomers(id: $id, name: $name) {
          id
          name
          email
        }
      }
    `;

    it("updates a customer cached under an order's nested path with the mutation's answer", async () => {
      const cache = await readmeCache();
      const apollo = client(cache);
      const { data } = await apollo.query<any>({ query: ORDERS, variables: { take: 5 } });
      const first = data!.recent[0];
      expect(first.buyer.__typename).toBe('Customers_2');
      const buyerId = first.buyer.id;
      const city = first.buyer.city;
      const theirOrders = data!.recent
        .filter((o: any) => o.buyer.id === buyerId)
        .map((o: any) => o.id);
      // One cache object per row, whatever the type name it was read as.
      const id = `Customers:{"id":"${buyerId}"}`;
      expect(cache.identify({ __typename: 'Customers_2', id: buyerId })).toBe(id);
      expect(cache.identify({ __typename: 'Customers', id: buyerId })).toBe(id);

      const renamed = await apollo.mutate<any>({
        mutation: RENAME,
        variables: { id: buyerId, name: 'Renamed by Apollo' },
      });
      expect(renamed.data!.renamed).toMatchObject({ __typename: 'Customers', id: buyerId });

      const cached = apollo.readQuery<any>({ query: ORDERS, variables: { take: 5 } });
      const theirs = cached!.recent.filter((o: any) => theirOrders.includes(o.id));
      expect(theirs).toHaveLength(theirOrders.length);
      for (const order of theirs) {
        // The fragment on Customers_2 still matches the object the mutation wrote as Customers
        // (its stored __typename now): every field of it is read, none left out.
        expect(order.buyer).toEqual({
          __typename: 'Customers',
          id: buyerId,
          name: 'Renamed by Apollo',
          city,
        });
      }
      const stored = cache.extract();
      expect(stored[id]).toMatchObject({ name: 'Renamed by Apollo', email: expect.any(String) });
      expect(Object.keys(stored).filter((k) => /^Customers/.test(k))).toEqual([
        ...new Set(data!.recent.map((o: any) => `Customers:{"id":"${o.buyer.id}"}`)),
      ]);
      // What the service now holds is what the cache shows.
      const held = await server(
        'query($id: ID!) { getCustomers(where: {id: {eq: $id}}) { name } }',
        {
          id: buyerId,
        },
      );
      expect(held.getCustomers).toEqual([{ name: 'Renamed by Apollo' }]);
    });

    it('shares one cache object between Albums and Album, keyed by album_id', async () => {
      const cache = await readmeCache();
      const apollo = client(cache);
      const ARTIST = gql`
        query Artist($artist: ID!) {
          getArtists(where: { artist_id: { eq: $artist } }, take: 1) {
            artist_id
            name
            records: album(take: 10, order: [{ album_id: ASC }]) {
              album_id
              title
            }
          }
        }
      `;
      const { data } = await apollo.query<any>({ query: ARTIST, variables: { artist: '1' } });
      expect(
        data!.getArtists[0].records.map((a: any) => [a.__typename, a.album_id, a.title]),
      ).toEqual([
        ['Album', '1', 'For Those About To Rock We Salute You'],
        ['Album', '4', 'Let There Be Rock'],
      ]);
      const retitled = await apollo.mutate<any>({
        mutation: gql`
          mutation Retitle($id: ID!, $title: String!) {
            updateAlbums(album_id: $id, title: $title) {
              album_id
              title
              artist {
                artist_id
                name
              }
            }
          }
        `,
        variables: { id: '4', title: 'Let There Be Rock (Live)' },
      });
      expect(retitled.data!.updateAlbums.__typename).toBe('Albums');
      const cached = apollo.readQuery<any>({ query: ARTIST, variables: { artist: '1' } });
      expect(cached!.getArtists[0].records.map((a: any) => a.title)).toEqual([
        'For Those About To Rock We Salute You',
        'Let There Be Rock (Live)',
      ]);
      const stored = cache.extract();
      expect(stored['Album:{"album_id":"4"}']).toMatchObject({ title: 'Let There Be Rock (Live)' });
      // The mutation's nested `Artist` and the query's root `Artists` are one object too.
      expect(stored['Artist:{"artist_id":"1"}']).toMatchObject({ name: 'AC/DC' });
      expect(Object.keys(stored).filter((k) => /^(Albums|Artists):/.test(k))).toEqual([]);
    });

    it('keeps rows whose key was not selected inside their parent, never as one shared object', async () => {
      const cache = await readmeCache();
      const apollo = client(cache);
      const { data } = await apollo.query<any>({
        query: gql`
          {
            titles: getAlbums(take: 2, order: [{ album_id: ASC }]) {
              title
            }
          }
        `,
      });
      expect(data!.titles.map((a: { title: string }) => a.title)).toEqual([
        'For Those About To Rock We Salute You',
        'Balls to the Wall',
      ]);
      const stored = cache.extract();
      expect(Object.keys(stored)).toEqual(['ROOT_QUERY']);
      const titles = Object.entries(stored.ROOT_QUERY!).find(([k]) => k.startsWith('getAlbums'));
      expect(titles![1]).toEqual([
        { __typename: 'Albums', title: 'For Those About To Rock We Salute You' },
        { __typename: 'Albums', title: 'Balls to the Wall' },
      ]);
    });

    it('rejects with the refusal codes as CombinedGraphQLErrors', async () => {
      const apollo = client(await readmeCache());
      const refusal = async (query: Parameters<typeof apollo.query>[0]) => {
        const error = await apollo.query(query).then(
          () => null,
          (e: unknown) => e,
        );
        expect(CombinedGraphQLErrors.is(error)).toBe(true);
        return (error as CombinedGraphQLErrors).errors[0].extensions?.code;
      };
      expect(
        await refusal({
          query: gql`
            query Take($take: Int) {
              getCustomers(take: $take) {
                id
              }
            }
          `,
          variables: { take: 'many' },
        }),
      ).toBe('BAD_USER_INPUT');
      expect(
        await refusal({
          query: gql`
            {
              getCustomers {
                id
                nickname
              }
            }
          `,
        }),
      ).toBe('GRAPHQL_VALIDATION_FAILED');
    });

    it("reads a 429's status and retry-after in a link, from the operation's response", async () => {
      const limited = await newKey({ rateLimitPerMinute: 1 });
      let seen: { status: number; retryAfter: string | null } | null = null;
      const onError = new ErrorLink(({ operation }) => {
        const { response } = operation.getContext() as { response?: Response };
        if (response)
          seen = { status: response.status, retryAfter: response.headers.get('retry-after') };
      });
      const apollo = new ApolloClient({
        link: ApolloLink.from([
          onError,
          new HttpLink({ uri: url, headers: { 'x-api-key': limited } }),
        ]),
        cache: new InMemoryCache(),
      });
      const COUNT = gql`
        {
          countCustomers
        }
      `;
      await apollo.query<any>({ query: COUNT, fetchPolicy: 'network-only' });
      expect(seen).toBeNull();
      const error = await apollo.query<any>({ query: COUNT, fetchPolicy: 'network-only' }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(CombinedGraphQLErrors.is(error)).toBe(true);
      expect((error as CombinedGraphQLErrors).errors[0].extensions?.code).toBe('RATE_LIMITED');
      expect(seen!.status).toBe(429);
      expect(Number(seen!.retryAfter)).toBeGreaterThanOrEqual(1);
    });
  });

  describe('urql core', () => {
    const urql = (apiKey = key) =>
      new Client({
        url,
        exchanges: [cacheExchange, fetchExchange],
        fetchOptions: { headers: { 'x-api-key': apiKey } },
      });

    const ORDER = `
      query Order($id: ID!) {
        order: getOrders(where: { id: { eq: $id } }) { ...Line buyer: customer { id name } }
      }
      fragment Line on Orders { id total }`;

    it('reads with variables, fragments and aliases, and writes', async () => {
      const client = urql();
      const read = await client.query(ORDER, { id: '2' }).toPromise();
      expect(read.error).toBeUndefined();
      const [order] = read.data.order;
      expect(order).toMatchObject({
        __typename: 'Orders',
        id: '2',
        buyer: { __typename: 'Customers_2' },
      });
      const added = await client
        .mutation(
          `mutation Add($name: String!, $email: String!) {
             added: addCustomers(name: $name, email: $email) { id name }
           }`,
          { name: 'Ura Ql', email: 'urql@example.com' },
        )
        .toPromise();
      expect(added.error).toBeUndefined();
      expect(added.data.added).toMatchObject({ __typename: 'Customers', name: 'Ura Ql' });
      const gone = await client
        .mutation('mutation($id: ID!) { deleteCustomers(id: $id) }', { id: added.data.added.id })
        .toPromise();
      expect(gone.data).toEqual({ deleteCustomers: true });
    });

    it('refreshes a cached query after a mutation once told the sibling type names (possibleTypes)', async () => {
      const client = urql();
      const { possibleTypes } = (
        await run.http<CachePolicies>('GET', '/api/graphql/demo/cache-policies', {
          headers: { 'x-api-key': key },
        })
      ).body;
      const before = (await client.query(ORDER, { id: '2' }).toPromise()).data.order[0].buyer;
      const rename = (name: string, additionalTypenames?: string[]) =>
        client
          .mutation(
            'mutation($id: ID!, $name: String!) { updateCustomers(id: $id, name: $name) { id name } }',
            { id: before.id, name },
            { additionalTypenames },
          )
          .toPromise();
      // urql's document cache drops the queries holding the mutation's __typename (Customers);
      // the order holds its customer as Customers_2, so it is still served from the cache.
      expect((await rename('Renamed by urql')).data.updateCustomers.__typename).toBe('Customers');
      const stale = await client.query(ORDER, { id: '2' }).toPromise();
      expect(stale.operation.context.meta?.cacheOutcome).toBe('hit');
      expect(stale.data.order[0].buyer.name).toBe(before.name);
      // Naming the row's other types, as the service lists them, drops it.
      expect(possibleTypes.Customers).toEqual(['Customers_2']);
      await rename('Renamed by urql, again', possibleTypes.Customers);
      const fresh = await client.query(ORDER, { id: '2' }).toPromise();
      expect(fresh.operation.context.meta?.cacheOutcome).toBe('miss');
      expect(fresh.data.order[0].buyer.name).toBe('Renamed by urql, again');
    });

    it('exposes refusals as a CombinedError with the codes and the response', async () => {
      const client = urql();
      const bad = await client
        .query('query($take: Int) { getCustomers(take: $take) { id } }', { take: 'many' })
        .toPromise();
      expect(bad.error).toBeInstanceOf(CombinedError);
      expect(bad.error!.graphQLErrors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(bad.error!.response.status).toBe(400);
      const invalid = await client.query('{ getCustomers { nickname } }', {}).toPromise();
      expect(invalid.error!.graphQLErrors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    });

    it("exposes a 429 through the CombinedError's response, with retry-after", async () => {
      const client = urql(await newKey({ rateLimitPerMinute: 1 }));
      const count = () =>
        client.query('{ countOrders }', {}, { requestPolicy: 'network-only' }).toPromise();
      expect((await count()).data).toEqual({ countOrders: 20 });
      const limited = await count();
      expect(limited.error).toBeInstanceOf(CombinedError);
      expect(limited.error!.graphQLErrors[0].extensions.code).toBe('RATE_LIMITED');
      expect(limited.error!.response.status).toBe(429);
      expect(Number(limited.error!.response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    });
  });

  describe('graphql-request', () => {
    const requester = (apiKey = key) =>
      new GraphQLClient(url, { headers: { 'x-api-key': apiKey } });

    it('reads with variables, fragments and aliases, and writes', async () => {
      const client = requester();
      const data = await client.request<{
        first: { key: string; title: string; by: { name: string } }[];
      }>(
        `query Albums($ids: [ID!]) {
           first: getAlbums(where: { album_id: { in: $ids } }, order: [{ album_id: ASC }]) { ...Titled by: artist { name } }
         }
         fragment Titled on Albums { key: album_id title }`,
        { ids: ['2', '3'] },
      );
      expect(data.first).toEqual([
        { key: '2', title: 'Balls to the Wall', by: { name: 'Accept' } },
        { key: '3', title: 'Restless and Wild', by: { name: 'Accept' } },
      ]);
      const added = await client.request<{ addArtists: { artist_id: string; name: string } }>(
        'mutation($name: String!) { addArtists(name: $name) { artist_id name } }',
        { name: 'Audioslave' },
      );
      expect(added.addArtists).toEqual({ artist_id: '4', name: 'Audioslave' });
      const renamed = await client.request<{ updateArtists: { name: string } }>(
        'mutation($id: ID!, $name: String!) { updateArtists(artist_id: $id, name: $name) { name } }',
        { id: added.addArtists.artist_id, name: 'Audioslave (band)' },
      );
      expect(renamed.updateArtists).toEqual({ name: 'Audioslave (band)' });
      const raw = await client.rawRequest<{ deleteArtists: boolean }>(
        'mutation($id: ID!) { deleteArtists(artist_id: $id) }',
        { id: added.addArtists.artist_id },
      );
      expect([raw.status, raw.data]).toEqual([200, { deleteArtists: true }]);
    });

    it('throws a ClientError carrying the codes and the status', async () => {
      const client = requester();
      const refusal = async (query: string, variables?: Record<string, unknown>) => {
        const error = await client.request(query, variables).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ClientError);
        const { response } = error as ClientError;
        return [response.status, response.errors?.[0].extensions?.code];
      };
      expect(
        await refusal('query($take: Int) { getAlbums(take: $take) { title } }', { take: 'x' }),
      ).toEqual([400, 'BAD_USER_INPUT']);
      expect(await refusal('{ getAlbums { nickname } }')).toEqual([
        400,
        'GRAPHQL_VALIDATION_FAILED',
      ]);
    });

    it("exposes a 429 as ClientError's response status and headers", async () => {
      const client = requester(await newKey({ rateLimitPerMinute: 1 }));
      expect(await client.request('{ countAlbums }')).toEqual({ countAlbums: 5 });
      const error = await client.request('{ countAlbums }').then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ClientError);
      const { response } = error as ClientError;
      expect(response.status).toBe(429);
      expect(response.errors?.[0].extensions?.code).toBe('RATE_LIMITED');
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    });
  });
});
