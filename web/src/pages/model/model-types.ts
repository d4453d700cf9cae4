/**
 * REST shapes of the app, datasource, data model and enum pages (CONTRACT.md §3; the service's
 * OpenAPI document at `/api/docs` lists them), beside the shared ones in `shared/types.ts`.
 */
import type { ModelField, ModelRelation } from '../../shared/types';

/** A datasource (`GET …/datasources`): never its URL. */
export interface Datasource {
  id: string;
  name: string;
  type: DatasourceType;
  /** ISO 8601, UTC. */
  createdAt?: string;
}

/** The database types a datasource may be (CONTRACT.md §3). */
export type DatasourceType = 'postgres' | 'mysql' | 'mssql' | 'sqlite';

/** A table or view of the live database (`GET …/datasources/:dsId/tables`). */
export interface LiveTable {
  schema: string | null;
  name: string;
  kind: 'table' | 'view';
}

/** A model column as the data model REST lists it, with its GraphQL type. */
export interface ModelColumn extends ModelField {
  graphqlType?: string;
  enum?: string | null;
  declaredType?: string;
  comment?: string | null;
  computed?: boolean;
  dbEnum?: { name: string; values: string[] };
}

/** A navigation field with the columns it joins on. */
export interface ModelNavigation extends ModelRelation {
  fromColumn?: string;
  toColumn?: string;
}

/** A model table with everything the data model page shows. */
export interface FullModelTable {
  name: string;
  schema: string | null;
  dbName: string;
  active: boolean;
  readOnly: boolean;
  primaryKey: string[];
  primaryKeyChosen: boolean;
  comment?: string;
  fields: ModelColumn[];
  relations: ModelNavigation[];
}

/** `GET …/model/tables`: model tables by datasource. */
export interface FullModelGroup {
  datasource: { id: string; name: string };
  tables: FullModelTable[];
}

/** One value of an app enum. */
export interface EnumValue {
  value: string;
  label?: string | null;
  color?: string | null;
}

/** An app enum (`GET …/enums`). */
export interface AppEnum {
  name: string;
  description?: string | null;
  values: EnumValue[];
}

/** An SQL API as listed (`GET …/sql-apis`), what the app page shows of it. */
export interface SqlApiSummary {
  id: string;
  name: string;
  kind?: 'query' | 'mutation';
  status: 'draft' | 'published';
}

/** The full name of a live table as the import takes it: `schema.table`, or `table`. */
export function liveName(t: { schema: string | null; name: string }): string {
  return t.schema === null ? t.name : `${t.schema}.${t.name}`;
}
