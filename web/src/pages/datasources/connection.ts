import type { DatasourceType } from '../model/model-types';

/** The parts of a connection the form asks for; the URL is built from them, never shown back. */
export interface ConnectionParts {
  type: DatasourceType;
  host: string;
  port: string;
  database: string;
  user: string;
  password: string;
  /** `off`; `verify`: TLS with the certificate checked; `unverified`: TLS only (PostgreSQL `require`). */
  tls: 'off' | 'verify' | 'unverified';
  /** SQLite: the file in the app's datasource folder. */
  file: string;
}

/** Each type's default port and its name as people know it. */
export const DATASOURCE_TYPES: { type: DatasourceType; label: string; port: string }[] = [
  { type: 'postgres', label: 'PostgreSQL', port: '5432' },
  { type: 'mysql', label: 'MySQL or MariaDB', port: '3306' },
  { type: 'mssql', label: 'SQL Server', port: '1433' },
  { type: 'sqlite', label: 'SQLite file', port: '' },
];

/** The name of a type as people know it. */
export function typeLabel(type: string): string {
  return DATASOURCE_TYPES.find((t) => t.type === type)?.label ?? type;
}

/** An empty connection of a type. */
export function emptyConnection(type: DatasourceType = 'postgres'): ConnectionParts {
  const port = DATASOURCE_TYPES.find((t) => t.type === type)?.port ?? '';
  return { type, host: '', port, database: '', user: '', password: '', tls: 'off', file: '' };
}

/** What is missing before a connection can be tried. */
export function connectionProblems(parts: ConnectionParts): string[] {
  if (parts.type === 'sqlite') return parts.file.trim() ? [] : ['Name the SQLite file.'];
  const problems: string[] = [];
  if (!parts.host.trim()) problems.push('Give the host name or address of the database server.');
  if (parts.port && !/^\d{1,5}$/.test(parts.port)) problems.push('The port is a number.');
  if (!parts.database.trim()) problems.push('Name the database.');
  if (!parts.user.trim()) problems.push('Give the user name.');
  return problems;
}

/**
 * The datasource URL of the parts, in the shape the service reads for the type (README
 * "Datasources"): `postgres://user:password@host:port/database?sslmode=…`,
 * `mysql://…?ssl=true`, `mssql://…?encrypt=true&trustServerCertificate=false`, `sqlite:<file>`.
 * User and password are percent-encoded, so any character in them is sent as typed.
 */
export function connectionUrl(parts: ConnectionParts): string {
  if (parts.type === 'sqlite') return `sqlite:${parts.file.trim()}`;
  const auth = `${encodeURIComponent(parts.user.trim())}:${encodeURIComponent(parts.password)}`;
  const host = parts.host.trim().includes(':') ? `[${parts.host.trim()}]` : parts.host.trim();
  const port = parts.port ? `:${parts.port}` : '';
  const base = `${parts.type}://${auth}@${host}${port}/${encodeURIComponent(parts.database.trim())}`;
  switch (parts.type) {
    case 'postgres':
      return `${base}?sslmode=${{ off: 'disable', verify: 'verify-full', unverified: 'require' }[parts.tls]}`;
    case 'mysql':
      return parts.tls === 'off' ? base : `${base}?ssl=true`;
    case 'mssql':
      return parts.tls === 'off'
        ? `${base}?encrypt=false`
        : `${base}?encrypt=true&trustServerCertificate=${parts.tls === 'unverified'}`;
  }
}
