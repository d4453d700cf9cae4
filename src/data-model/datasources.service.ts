import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { DomainError, ErrorCode, notFound } from '../common/domain-error';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import {
  checkDatasourceUrl,
  confineSqliteUrl,
  ensureSqliteAppFolder,
  parseSqliteUrl,
  storedSqliteUrl,
  urlWithLogin,
  type DatasourceLogin,
} from '../datasources/datasource-urls';
import {
  DatasourceConnection,
  DatasourcePoolsService,
} from '../datasources/datasource-pools.service';
import type {
  Capabilities,
  Dialect,
  IntrospectedTable,
  ListedTable,
  SqlPool,
  TableRef,
} from '../datasources/core/dialect';
import { EventsService } from '../events/events.service';
import { SecretBoxService } from '../platform/secret-box.service';
import { AppVersionEntity } from '../platform/entities/app-version.entity';
import { DatasourceEntity } from './entities/datasource.entity';

/** A datasource as routes return it: never the URL (it holds credentials). */
export interface DatasourceView {
  id: string;
  name: string;
  type: string;
  /** When it was registered (ISO 8601, UTC). */
  createdAt: string;
  /** IANA zone its dates and times without zone are read in (SQL APIs' zoned instants). */
  timeZone: string;
  /**
   * Whether a read-only login is set (README "Datasources"): query-kind SQL APIs run with it. Its
   * user name and password are never answered.
   */
  readOnlyLogin: boolean;
}

const view = (d: DatasourceEntity): DatasourceView => ({
  id: d.id,
  name: d.name,
  type: d.type,
  createdAt: d.createdAt,
  timeZone: d.timeZone ?? 'UTC',
  readOnlyLogin: d.readOnlyLoginCiphertext !== null && d.readOnlyLoginCiphertext !== undefined,
});

/**
 * A datasource's time zone as given at registration or in a change: an IANA name the runtime knows
 * (`Intl.supportedValuesOf('timeZone')`, or `UTC`), else refused.
 * @throws DomainError INVALID_INPUT naming the value.
 */
export function checkTimeZone(zone: string): string {
  if (zone === 'UTC' || Intl.supportedValuesOf('timeZone').includes(zone)) return zone;
  throw new DomainError(
    ErrorCode.InvalidInput,
    `timeZone "${zone}" is not an IANA time zone name (e.g. UTC, Europe/Lisbon, America/Sao_Paulo)`,
  );
}

/**
 * An app's datasources: registered after a successful trial connection, URL encrypted at rest,
 * opened through {@link DatasourcePoolsService}.
 */
@Injectable()
export class DatasourcesService {
  private readonly connections = new Map<string, DatasourceConnection>();

  constructor(
    @InjectRepository(DatasourceEntity) private readonly datasources: Repository<DatasourceEntity>,
    private readonly pools: DatasourcePoolsService,
    private readonly secretBox: SecretBoxService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: EventsService,
  ) {
    // A deleted datasource's pool is closed on every instance, not left idle until restart; so is
    // the pool of one whose URL changed, which the next request opens again with the new URL.
    events.on('DatasourceRemoved', ({ datasourceId }) => {
      this.connections.delete(datasourceId);
      void this.pools.close(datasourceId);
    });
  }

  /**
   * Checks the URL against its type's rules ({@link checkDatasourceUrl}: allowed parameters, one
   * network host, no file), tries the connection, then saves the datasource. A SQLite URL names a
   * file in the app's own folder `<SQLITE_DATASOURCE_DIR>/<appId>/` (created here on first use)
   * and is stored as the builder wrote it (`sqlite:sales.db`), resolved again on every open. The
   * trial connection, as every later one, is refused when it reaches the service's own metadata
   * store or a copy of it (`DatasourcePoolsService`, `datasources/own-store.ts`; issue 22 item 1).
   * @throws DomainError INVALID_INPUT (type, URL, the service's store or a copy of it), CONFLICT
   * (name taken), DATASOURCE_UNREACHABLE (one message per kind of failure: no server of the type
   * answered, the login refused, no such database; `datasources/connect-failures.ts`; never the
   * driver's words for a network datasource, never the URL or password).
   */
  async create(
    appId: string,
    input: { name: string; type: string; url: string; timeZone?: string },
  ): Promise<DatasourceView> {
    const timeZone = input.timeZone === undefined ? null : checkTimeZone(input.timeZone);
    if (await this.datasources.existsBy({ appId, name: input.name })) {
      throw new DomainError(
        ErrorCode.Conflict,
        `The app has a datasource named "${input.name}" already; choose another name`,
      );
    }
    const serverVersion = await this.tryUrl(appId, input.type, input.url);
    const url = input.type === 'sqlite' ? `sqlite:${parseSqliteUrl(input.url)}` : input.url;
    const entity = this.datasources.create({
      id: randomUUID(),
      appId,
      name: input.name,
      type: input.type,
      urlCiphertext: this.secretBox.seal(url),
      serverVersion,
      timeZone,
      readOnlyLoginCiphertext: null,
      createdAt: new Date().toISOString(),
    });
    await this.datasources.insert(entity);
    return view(entity);
  }

  /**
   * Tries a connection as {@link create} does (same URL rules, same answers per kind of
   * failure), saving nothing: the pages' "Test connection".
   * @returns the server's version text (PostgreSQL `SHOW server_version`, e.g. `16.4 (Debian …)`;
   *   MySQL/MariaDB `VERSION()`), never the URL.
   * @throws DomainError INVALID_INPUT, DATASOURCE_UNREACHABLE (see {@link create}).
   */
  async test(
    appId: string,
    input: { type: string; url: string },
  ): Promise<{ serverVersion: string }> {
    const serverVersion = await this.tryUrl(appId, input.type, input.url);
    return { serverVersion: serverVersion ?? '' };
  }

  /**
   * Changes a datasource: its name; its connection URL (new credentials, host or database; the
   * type stays, as its imported tables were read with it); its time zone; its read-only login
   * (`null` removes it). A new URL is checked and tried as in {@link create}, and a read-only login
   * (new, or kept with a new URL) is tried with the URL's host and database and refused when the
   * login may write ({@link tryReadOnlyLogin}), before anything is saved. Once saved, a new URL or
   * login closes the datasource's pools on every instance (`DatasourceRemoved` event), so the next
   * request connects with them; a new time zone drops the app's cached schemas (`ModelChanged`
   * for each of its versions), so the next request reads dates in it.
   * @throws DomainError NOT_FOUND, CONFLICT (name taken), INVALID_INPUT (URL, time zone, a login
   * that may write, a login on SQLite), DATASOURCE_UNREACHABLE (see {@link create}); nothing is
   * changed then.
   */
  async update(
    appId: string,
    id: string,
    change: {
      name?: string;
      url?: string;
      timeZone?: string;
      readOnlyLogin?: DatasourceLogin | null;
    },
  ): Promise<DatasourceView> {
    const ds = await this.entity(appId, id);
    const timeZone = change.timeZone === undefined ? undefined : checkTimeZone(change.timeZone);
    if (change.name !== undefined && change.name !== ds.name) {
      if (await this.datasources.existsBy({ appId, name: change.name }))
        throw new DomainError(
          ErrorCode.Conflict,
          `The app has a datasource named "${change.name}" already; choose another name`,
        );
      ds.name = change.name;
    }
    let reconnect = false;
    if (change.url !== undefined) {
      const url = ds.type === 'sqlite' ? `sqlite:${parseSqliteUrl(change.url)}` : change.url;
      ds.serverVersion = await this.tryUrl(appId, ds.type, change.url);
      ds.urlCiphertext = this.secretBox.seal(url);
      reconnect = true;
    }
    if (change.readOnlyLogin === null) {
      reconnect ||= ds.readOnlyLoginCiphertext !== null;
      ds.readOnlyLoginCiphertext = null;
    } else if (change.readOnlyLogin !== undefined || (reconnect && ds.readOnlyLoginCiphertext)) {
      const login = change.readOnlyLogin ?? this.readOnlyLogin(ds);
      await this.tryReadOnlyLogin(ds, login!);
      ds.readOnlyLoginCiphertext = this.secretBox.seal(JSON.stringify(login));
      reconnect = true;
    }
    const zoneChanged = timeZone !== undefined && timeZone !== (ds.timeZone ?? 'UTC');
    if (timeZone !== undefined) ds.timeZone = timeZone;
    await this.datasources.update(
      { id: ds.id, appId },
      {
        name: ds.name,
        urlCiphertext: ds.urlCiphertext,
        serverVersion: ds.serverVersion,
        timeZone: ds.timeZone,
        readOnlyLoginCiphertext: ds.readOnlyLoginCiphertext,
      },
    );
    if (reconnect) this.events.datasourceRemoved({ datasourceId: ds.id });
    if (zoneChanged) await this.schemasChanged(appId);
    return view(ds);
  }

  /**
   * Tries a read-only login on a stored datasource: its URL with the login's user name and
   * password (`urlWithLogin`), opened as every connection is, then asked what it may write
   * (`Dialect.loginWrites`).
   * @throws DomainError INVALID_INPUT (SQLite; the login may write: every reason, e.g. "the login
   *   may write 2 tables (public.customers, public.orders)"), DATASOURCE_UNREACHABLE (the server
   *   refused the login: the message says so, never the password).
   */
  private async tryReadOnlyLogin(ds: DatasourceEntity, login: DatasourceLogin): Promise<void> {
    const url = urlWithLogin(ds.type, this.storedUrl(ds), login);
    const writes = await this.pools
      .withConnection(ds.type, url, (pool, dialect) =>
        dialect.loginWrites ? dialect.loginWrites((query) => pool.run(query)) : Promise.resolve([]),
      )
      .catch((error: unknown) => {
        // Which login failed: the message is the connection's (never the password).
        if (error instanceof DomainError && error.code === ErrorCode.DatasourceUnreachable)
          throw new DomainError(error.code, `readOnlyLogin: ${error.message}`);
        throw error;
      });
    if (writes.length)
      throw new DomainError(
        ErrorCode.InvalidInput,
        'readOnlyLogin: this login may write, so it cannot be the read-only login; grant it SELECT only',
        writes.map((w) => `readOnlyLogin: ${w}`),
      );
  }

  /** The stored read-only login of a datasource, or null. */
  private readOnlyLogin(ds: DatasourceEntity): DatasourceLogin | null {
    return ds.readOnlyLoginCiphertext
      ? (JSON.parse(this.secretBox.open(ds.readOnlyLoginCiphertext)) as DatasourceLogin)
      : null;
  }

  /** The URL a datasource's read-only login opens with ({@link storedUrl} with it), or null. */
  private readOnlyUrl(ds: DatasourceEntity): string | null {
    const login = this.readOnlyLogin(ds);
    return login ? urlWithLogin(ds.type, this.storedUrl(ds), login) : null;
  }

  /**
   * Drops every cached schema of the app on every instance (`ModelChanged` past any revision for
   * each of its versions): what a schema read from the datasource row (its time zone) changed.
   */
  private async schemasChanged(appId: string): Promise<void> {
    const versions = await this.datasources.manager.find(AppVersionEntity, {
      where: { appId },
      select: { id: true },
    });
    for (const version of versions)
      this.events.modelChanged({
        appId,
        versionId: version.id,
        revision: Number.MAX_SAFE_INTEGER,
      });
  }

  /**
   * Checks a URL against its type's rules and opens one connection with it.
   * @returns the server's version text.
   */
  private async tryUrl(appId: string, type: string, rawUrl: string): Promise<string | null> {
    this.pools.dialect(type);
    checkDatasourceUrl(type, rawUrl);
    const url = type === 'sqlite' ? `sqlite:${parseSqliteUrl(rawUrl)}` : rawUrl;
    if (type === 'sqlite') ensureSqliteAppFolder(this.config.sqliteDatasourceDir, appId);
    return this.pools.withConnection(type, this.openableUrl(appId, type, url), (pool) =>
      pool.serverVersion(),
    );
  }

  /** The app's datasources. */
  async list(appId: string): Promise<DatasourceView[]> {
    return (await this.datasources.find({ where: { appId }, order: { createdAt: 'ASC' } })).map(
      view,
    );
  }

  /** One datasource of the app. @throws DomainError NOT_FOUND. */
  async get(appId: string, id: string): Promise<DatasourceView> {
    return view(await this.entity(appId, id));
  }

  /** Importable tables and views of the live database, each with its kind (`table` | `view`). */
  async tables(appId: string, id: string): Promise<ListedTable[]> {
    const ds = await this.entity(appId, id);
    return this.pools.withConnection(ds.type, this.storedUrl(ds), (db, dialect) =>
      dialect.listTables(db),
    );
  }

  /**
   * Introspects tables of a datasource over one short-lived connection: `choose` picks them from
   * the live tables and views (and may throw to refuse the request).
   */
  async introspect(
    appId: string,
    id: string,
    choose: (available: ListedTable[]) => TableRef[],
  ): Promise<IntrospectedTable[]> {
    const ds = await this.entity(appId, id);
    return this.pools.withConnection(ds.type, this.storedUrl(ds), async (pool, dialect) =>
      dialect.introspect(pool, choose(await dialect.listTables(pool))),
    );
  }

  /**
   * Runs `use` on a short-lived one-connection pool of the app's datasource, checked as every
   * connection is (describing an SQL API's statement at save, README "SQL APIs"). With
   * `readOnlyLogin`, the pool opens with the datasource's read-only login when it has one (a
   * query kind is described as it will run: with what that login may read).
   * @throws DomainError NOT_FOUND, DATASOURCE_UNREACHABLE (see `DatasourcePoolsService.withConnection`).
   */
  async withPool<T>(
    appId: string,
    id: string,
    use: (pool: SqlPool, dialect: Dialect) => Promise<T>,
    options: { readOnlyLogin?: boolean } = {},
  ): Promise<T> {
    const ds = await this.entity(appId, id);
    const url = (options.readOnlyLogin && this.readOnlyUrl(ds)) || this.storedUrl(ds);
    return this.pools.withConnection(ds.type, url, use);
  }

  /**
   * The pooled connection the GraphQL resolvers query, kept after the first lookup (forgotten on
   * every instance when its URL or read-only login changes, `DatasourceRemoved`), so requests need
   * not read and decrypt it again. Its `readOnly` runs with the read-only login when one is set
   * (`DatasourcePoolsService.connection`).
   * @throws DomainError NOT_FOUND.
   */
  async connection(datasourceId: string): Promise<DatasourceConnection> {
    const known = this.connections.get(datasourceId);
    if (known) return known;
    const ds = await this.datasources.findOneBy({ id: datasourceId });
    if (!ds) throw notFound('Datasource', datasourceId);
    const connection = this.pools.connection(
      ds.id,
      ds.type,
      this.storedUrl(ds),
      this.readOnlyUrl(ds),
    );
    this.connections.set(datasourceId, connection);
    return connection;
  }

  /**
   * What each of the app's datasources can do in one statement, by datasource id, with the zone
   * its dates and times without zone are read in (`timeZone`, README "SQL APIs").
   */
  async capabilities(appId: string): Promise<Map<string, Capabilities & { timeZone: string }>> {
    const all = await this.datasources.find({
      where: { appId },
      select: { id: true, type: true, serverVersion: true, timeZone: true },
    });
    return new Map(
      all.map((d) => [
        d.id,
        // The zone SQL APIs read dates without zone in (graphql-gateway/sql-api-schema.ts).
        {
          ...this.pools.dialect(d.type).capabilities(d.serverVersion),
          timeZone: d.timeZone ?? 'UTC',
        },
      ]),
    );
  }

  /**
   * The URL a stored datasource opens with ({@link openableUrl} of its decrypted URL). SQLite
   * datasources saved with an absolute path inside their app's folder (as stored before URLs were
   * kept as written) are read as the relative name they stand for.
   */
  private storedUrl(ds: DatasourceEntity): string {
    const stored = this.secretBox.open(ds.urlCiphertext);
    const url =
      ds.type === 'sqlite'
        ? storedSqliteUrl(stored, this.config.sqliteDatasourceDir, ds.appId)
        : stored;
    return this.openableUrl(ds.appId, ds.type, url);
  }

  /**
   * The URL the driver gets: a SQLite URL resolved inside the app's folder, checked again at every
   * open so a file swapped for a symbolic link after registration is refused; others as they are
   * (their dialect parses them with the same rules).
   * @throws DomainError INVALID_INPUT.
   */
  private openableUrl(appId: string, type: string, url: string): string {
    return type === 'sqlite' ? confineSqliteUrl(url, this.config.sqliteDatasourceDir, appId) : url;
  }

  private async entity(appId: string, id: string): Promise<DatasourceEntity> {
    const ds = await this.datasources.findOneBy({ id, appId });
    if (!ds) throw notFound('Datasource', id);
    return ds;
  }
}
