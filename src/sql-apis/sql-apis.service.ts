import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError, ErrorCode, invalidInput, notFound } from '../common/domain-error';
import { DatasourcesService } from '../data-model/datasources.service';
import {
  ALL_ROWS,
  type ColumnKind,
  type DatasourceType,
  type Dialect,
  type SqlPool,
  type StatementDescription,
} from '../datasources/core/dialect';
import { isReadDenied, statementRefusal } from '../datasources/core/statement-refusals';
import {
  parseNamedStatement,
  type ParsedStatement,
  StatementTextError,
} from '../datasources/core/sql-statement';
import type {
  SqlApiArgument,
  SqlApiColumn,
  SqlApiDefinition,
  VersionDefinition,
} from '../platform/version-definition';
import { VersionsService } from '../platform/versions.service';
import {
  columnNameProblems,
  mergeDescription,
  nameProblem,
  parameterProblem,
  publishProblems,
  typingProblems,
} from './sql-api-rules';

/** Input of create and update (README "SQL APIs"). */
export interface SqlApiInput {
  name?: string;
  datasourceId?: string;
  statement?: string;
  kind?: 'query' | 'mutation';
  filterable?: boolean;
  public?: boolean;
}

/**
 * A builder's confirmation of one argument or column (`PATCH …/arguments/:name`,
 * `…/columns/:name`): its kind, whether it may be empty, and a model enum (`null` clears it).
 */
export interface SqlApiConfirmation {
  kind?: ColumnKind;
  nullable?: boolean;
  enum?: string | null;
}

/**
 * SQL APIs of an app version (issue 26, README "SQL APIs"): saved in the builder's working
 * version and published with it, as Table APIs are. A save parses the statement
 * (`parseNamedStatement`: one statement, `:name` placeholders, refusals with their position),
 * asks the database to describe it in a read-only transaction that is rolled back
 * (`Dialect.describeStatement`) and stores what it proposed beside the builder's confirmations.
 */
@Injectable()
export class SqlApisService {
  constructor(
    private readonly versions: VersionsService,
    private readonly datasources: DatasourcesService,
  ) {}

  /** The version's SQL APIs as the builder sees them (their working version, else main). */
  async list(appId: string, accountId: string): Promise<SqlApiDefinition[]> {
    return (await this.versions.readForBuilder(appId, accountId)).sqlApis ?? [];
  }

  /** One SQL API. @throws DomainError NOT_FOUND. */
  async get(appId: string, accountId: string, id: string): Promise<SqlApiDefinition> {
    const api = (await this.list(appId, accountId)).find((a) => a.id === id);
    if (!api) throw notFound('SQL API', id);
    return api;
  }

  /**
   * Creates a draft SQL API: parses and describes the statement, then saves it with the proposed
   * arguments and columns.
   * @throws DomainError INVALID_INPUT (the statement's text with its line and column, a query
   * kind that is not a read, the database's refusal of the statement, a reserved parameter or a
   * column that is no GraphQL name), NOT_FOUND (datasource), CONFLICT (name taken, or a Table API
   * operation of that name), DATASOURCE_UNREACHABLE.
   */
  async create(
    appId: string,
    accountId: string,
    input: Required<Pick<SqlApiInput, 'name' | 'datasourceId' | 'statement' | 'kind'>> &
      SqlApiInput,
  ): Promise<SqlApiDefinition> {
    const described = await this.describe(appId, input.datasourceId, input.statement, input.kind);
    return this.versions.edit(appId, accountId, (def) => {
      const now = new Date().toISOString();
      const api: SqlApiDefinition = {
        id: randomUUID(),
        name: input.name,
        datasourceId: input.datasourceId,
        statement: input.statement,
        kind: input.kind,
        ...mergeDescription(described, null),
        filterable: input.filterable ?? false,
        public: input.public ?? false,
        status: 'draft',
        createdAt: now,
        updatedAt: now,
      };
      this.checkName(def, api);
      (def.sqlApis ??= []).push(api);
      return api;
    });
  }

  /**
   * Changes an SQL API. A new statement, datasource or kind is parsed and described again; the
   * builder's confirmations are kept for every argument and column whose name remains. A
   * published SQL API stays published unless an argument or column then lacks a type: it goes
   * back to draft (README "SQL APIs").
   * @throws DomainError NOT_FOUND, INVALID_INPUT, CONFLICT, DATASOURCE_UNREACHABLE as {@link create}.
   */
  async update(
    appId: string,
    accountId: string,
    id: string,
    input: SqlApiInput,
  ): Promise<SqlApiDefinition> {
    const current = await this.get(appId, accountId, id);
    const datasourceId = input.datasourceId ?? current.datasourceId;
    const statement = input.statement ?? current.statement;
    const kind = input.kind ?? current.kind;
    const again =
      datasourceId !== current.datasourceId ||
      statement !== current.statement ||
      kind !== current.kind;
    const described = again ? await this.describe(appId, datasourceId, statement, kind) : null;
    return this.versions.edit(appId, accountId, (def) => {
      const api = this.find(def, id);
      const next: SqlApiDefinition = {
        ...api,
        ...(input.name !== undefined && { name: input.name }),
        datasourceId,
        statement,
        kind,
        ...(described && mergeDescription(described, api)),
        ...(input.filterable !== undefined && { filterable: input.filterable }),
        ...(input.public !== undefined && { public: input.public }),
        updatedAt: new Date().toISOString(),
      };
      this.checkName(def, next);
      if (next.status === 'published' && typingProblems(def, next).length) next.status = 'draft';
      Object.assign(api, next);
      return api;
    });
  }

  /**
   * Confirms or overrides one argument (`part` `arguments`) or result column (`columns`): its
   * kind, nullability, and model enum (an enum types it as text; `null` removes it).
   * An enum makes the entry text; another kind drops the enum it had.
   * @throws DomainError NOT_FOUND (SQL API, argument or column), INVALID_INPUT (no such enum, an
   * enum with a kind other than text).
   */
  confirm(
    appId: string,
    accountId: string,
    id: string,
    part: 'arguments' | 'columns',
    name: string,
    change: SqlApiConfirmation,
  ): Promise<SqlApiDefinition> {
    return this.versions.edit(appId, accountId, (def) => {
      const api = this.find(def, id);
      const entries: (SqlApiArgument | SqlApiColumn)[] = api[part];
      const entry = entries.find((e) => e.name === name);
      const label = part === 'arguments' ? 'argument' : 'column';
      if (!entry) throw notFound(`SQL API ${label}`, name);
      if (change.enum && !def.enums.some((e) => e.name === change.enum))
        throw invalidInput(`There is no enum "${change.enum}"; create it first`);
      if (change.enum && change.kind !== undefined && change.kind !== 'text')
        throw invalidInput(`${label} ${name}: only text takes an enum (not ${change.kind})`);
      // An enum makes it text; another kind drops the enum it had.
      const kind =
        change.kind ?? (change.enum ? 'text' : 'type' in entry ? entry.type : entry.kind);
      const enumName =
        change.enum !== undefined
          ? (change.enum ?? undefined)
          : kind === 'text'
            ? entry.enum
            : undefined;
      if ('type' in entry) entry.type = kind;
      else entry.kind = kind;
      if (change.nullable !== undefined) entry.nullable = change.nullable;
      if (enumName === undefined) delete entry.enum;
      else entry.enum = enumName;
      entry.confirmed = true;
      api.updatedAt = new Date().toISOString();
      return api;
    });
  }

  /** Deletes an SQL API. @throws DomainError NOT_FOUND. */
  delete(appId: string, accountId: string, id: string): Promise<void> {
    return this.versions.edit(appId, accountId, (def) => {
      this.find(def, id);
      def.sqlApis = (def.sqlApis ?? []).filter((a) => a.id !== id);
    });
  }

  /**
   * Publishes an SQL API (with the version, as Table APIs: `POST …/versions/publish` then makes it
   * main).
   * @throws DomainError INVALID_INPUT with every reason: an argument or column without a type, an
   * enum that left the model, the datasource gone, a query kind on a SQL Server datasource without
   * a read-only login (`publishProblems`, issue 26 item 4); NOT_FOUND.
   */
  async publish(appId: string, accountId: string, id: string): Promise<{ status: 'published' }> {
    const current = await this.get(appId, accountId, id);
    const datasource = await this.datasources.get(appId, current.datasourceId).catch(() => null);
    return this.versions.edit(appId, accountId, (def) => {
      const api = this.find(def, id);
      const problems = [...typingProblems(def, api), ...publishProblems(api, datasource)];
      if (problems.length) throw invalidInput('This SQL API cannot be published yet', problems);
      api.status = 'published';
      api.updatedAt = new Date().toISOString();
      return { status: 'published' as const };
    });
  }

  /**
   * Parses `statement` for the datasource's database and asks the database to describe it.
   * @throws DomainError INVALID_INPUT (text, read rule, reserved or unusable names, the
   * database's refusal), NOT_FOUND, DATASOURCE_UNREACHABLE.
   */
  private async describe(
    appId: string,
    datasourceId: string,
    statement: string,
    kind: 'query' | 'mutation',
  ): Promise<StatementDescription> {
    const type = await this.datasourceType(appId, datasourceId);
    const parsed = parseStatement(statement, type, kind);
    // A query kind is described with the read-only login when the datasource has one: as it
    // will run, so a table that login may not read is refused now rather than at every call.
    const described = await this.datasources.withPool(
      appId,
      datasourceId,
      async (pool, dialect) => {
        const description = await dialect.describeStatement(pool, parsed);
        // MySQL/MariaDB and SQLite take any read as a subquery; there a NULL argument may not be
        // (MariaDB's LIMIT ?), so the proof would refuse statements that serve well.
        if (kind === 'query' && (type === 'postgres' || type === 'mssql'))
          await checkSubquery(pool, dialect, parsed, description);
        return description;
      },
      { readOnlyLogin: kind === 'query' },
    );
    const problems = columnNameProblems(described.columns.map((c) => c.name));
    if (problems.length) throw invalidInput('The statement cannot be served as it is', problems);
    return described;
  }

  private async datasourceType(appId: string, datasourceId: string): Promise<DatasourceType> {
    return (await this.datasources.get(appId, datasourceId)).type as DatasourceType;
  }

  private find(def: VersionDefinition, id: string): SqlApiDefinition {
    const api = (def.sqlApis ?? []).find((a) => a.id === id);
    if (!api) throw notFound('SQL API', id);
    return api;
  }

  private checkName(def: VersionDefinition, api: SqlApiDefinition): void {
    const problem = nameProblem(def, api);
    if (problem) throw new DomainError(ErrorCode.Conflict, problem);
  }
}

/**
 * Proves a query kind's statement can be read the way it is served (PostgreSQL, SQL Server): as the subquery of
 * `Dialect.compileStatementSelect`, run with every parameter NULL and no row asked for
 * (`take` 0) in a read-only transaction that is rolled back. A statement that cannot be a
 * subquery (a PostgreSQL data-modifying `WITH`) is refused at save rather than at every call.
 * @throws DomainError INVALID_INPUT (the database's refusal; the read-only refusal of a write; a
 * table the datasource's read-only login may not read, `StatementRefusal` INVALID_STATEMENT in
 * the database's words), TIMEOUT, DATASOURCE_UNAVAILABLE.
 */
async function checkSubquery(
  pool: SqlPool,
  dialect: Dialect,
  statement: ParsedStatement,
  description: StatementDescription,
): Promise<void> {
  const query = dialect.compileStatementSelect({
    statement,
    params: statement.binds.map(() => null),
    columns: description.columns.map((c) => ({
      name: c.name,
      dbType: c.databaseType ?? 'text',
      kind: c.kind ?? 'text',
      nullable: true,
      hasDefault: false,
      generated: false,
      maxLength: null,
    })),
    where: ALL_ROWS,
    order: [],
    take: 0,
    skip: 0,
  });
  try {
    await pool.readOnly((run) => run(query));
  } catch (error) {
    if (error instanceof DomainError) throw error;
    // The read-only login may not read a table: the database's words (a table name, no SQL).
    if (isReadDenied(error)) throw statementRefusal(error, () => true);
    throw invalidInput(
      'statement: a query kind is read as a subquery (SELECT … FROM (<statement>) AS q), and the database refused this one so; a PostgreSQL WITH that writes cannot be one: make it a mutation kind',
    );
  }
}

/**
 * A statement parsed for `type` and checked for its kind: one statement whose `:name`
 * placeholders are no reserved argument, and for a query kind a read.
 * @throws DomainError INVALID_INPUT naming the line and column of a text problem.
 */
export function parseStatement(
  statement: string,
  type: DatasourceType,
  kind: 'query' | 'mutation',
): ParsedStatement {
  let parsed: ParsedStatement;
  try {
    parsed = parseNamedStatement(statement, type);
  } catch (error) {
    if (error instanceof StatementTextError) {
      throw invalidInput(`statement: ${error.message}`, [
        `statement: ${error.message}; position ${error.position}`,
      ]);
    }
    throw error;
  }
  if (kind === 'query' && !parsed.isRead) {
    throw invalidInput(
      'statement: a query kind runs a read (SELECT, WITH, VALUES or TABLE); make it a mutation kind to write',
    );
  }
  const problems = parsed.names.map(parameterProblem).filter((p): p is string => p !== null);
  if (problems.length) throw invalidInput('statement: a parameter name is reserved', problems);
  return parsed;
}
