/**
 * The REST shapes the pages read and send, as CONTRACT.md §2, §3 and §5 define them (and the
 * service's OpenAPI document at `/api/docs` lists them). Written out here because the pages are
 * built apart from the server's sources.
 */

/** A platform account (§2). */
export interface Account {
  id: string;
  email: string;
  role: 'admin' | 'builder';
}

/** `POST /api/auth/login` answer (§2). The token is not kept: the pages use the cookie. */
export interface LoginAnswer {
  token: string;
  account: Account;
}

/** An app (§3). */
export interface App {
  id: string;
  name: string;
  address: string;
  domain: string | null;
}

/** The four actions of a Table API, or their public switches (§3). */
export interface Actions {
  select: boolean;
  insert: boolean;
  update: boolean;
  delete: boolean;
}

/** The action names, in the order the pages show them. */
export const ACTION_NAMES = ['select', 'insert', 'update', 'delete'] as const;

/** One action's name. */
export type ActionName = (typeof ACTION_NAMES)[number];

/** The included-fields tree: `true` for a column, a nested tree for a navigation field (§3). */
export interface FieldsTree {
  [field: string]: true | FieldsTree;
}

/** A Table API (§3). */
export interface TableApi {
  id: string;
  name: string;
  table: string;
  actions: Actions;
  public: Actions;
  fields: FieldsTree | null;
  status: 'draft' | 'published';
}

/** A column of a model table as `GET …/model/tables` lists it (§3). */
export interface ModelField {
  name: string;
  dbType: string;
  kind: string;
  nullable: boolean;
  hasDefault: boolean;
  generated: boolean;
  primaryKey: boolean;
}

/** A navigation field of a model table (§6): where it leads. */
export interface ModelRelation {
  name: string;
  kind: 'manyToOne' | 'oneToMany';
  to: string;
}

/** A model table (§3). `readOnly`: a view, whose APIs offer select only. */
export interface ModelTable {
  name: string;
  active: boolean;
  readOnly?: boolean;
  primaryKey: string[];
  fields: ModelField[];
  relations: ModelRelation[];
}

/** `GET /api/apps/:appId/model/tables?search=`: tables grouped by datasource (§3). */
export interface ModelGroup {
  datasource: { id: string; name: string };
  tables: ModelTable[];
}

/** One entry of a key's scope (§5). */
export interface ScopeEntry {
  appId: string;
  endpoints: 'all' | string[];
}

/** An API key as the admin REST lists it: never the key itself (§5). */
export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scope: ScopeEntry[];
  status: 'active' | 'revoked';
  lastUsedAt: string | null;
  rateLimitPerMinute: number;
  /** Cost points per minute (README "Cost budgets"). */
  pointsPerMinute: number;
  expiresAt: string | null;
  /** Whether MCP's `delete_row` may be called with the key (README "Agents (MCP)"). */
  mcpDeletes: boolean;
}

/** `POST /api/admin/api-keys` answer: the only time `key` is shown (§5). */
export interface CreatedApiKey extends ApiKey {
  key: string;
}

/** What the server puts in a page's HTML (`src/pages/page-data.ts`). */
export interface PageData {
  account: Account | null;
  testTab?: {
    app: { id: string; name: string; address: string };
    api: { id: string; name: string; status: 'draft' | 'published' };
    endpoint: string;
    starterQuery: string;
    editorUrl: string;
  };
}
