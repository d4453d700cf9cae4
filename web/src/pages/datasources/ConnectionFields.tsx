import type { ConnectionParts } from './connection';
import { DATASOURCE_TYPES, emptyConnection } from './connection';

/**
 * The fields of a connection: database type (unless `fixedType`), host, port, database, user,
 * password and TLS, or the file of a SQLite datasource. Ids start with `prefix`, so two forms on
 * one page keep their labels apart. The password field is empty and stays so: nothing stored is
 * ever shown back.
 */
export function ConnectionFields({
  prefix,
  parts,
  onChange,
  fixedType = false,
}: {
  prefix: string;
  parts: ConnectionParts;
  onChange: (parts: ConnectionParts) => void;
  fixedType?: boolean;
}) {
  const set = (change: Partial<ConnectionParts>) => onChange({ ...parts, ...change });
  const id = (name: string) => `${prefix}-${name}`;
  return (
    <>
      {!fixedType && (
        <div className="field">
          <label htmlFor={id('type')}>Database type</label>
          <select
            id={id('type')}
            value={parts.type}
            onChange={(e) => {
              const type = e.target.value as ConnectionParts['type'];
              onChange({
                ...emptyConnection(type),
                host: parts.host,
                database: parts.database,
                user: parts.user,
              });
            }}
          >
            {DATASOURCE_TYPES.map((t) => (
              <option key={t.type} value={t.type}>
                {t.label}
              </option>
            ))}
          </select>
        </div>
      )}
      {parts.type === 'sqlite' ? (
        <div className="field">
          <label htmlFor={id('file')}>SQLite file</label>
          <input
            id={id('file')}
            value={parts.file}
            autoComplete="off"
            spellCheck={false}
            aria-describedby={id('file-hint')}
            onChange={(e) => set({ file: e.target.value })}
          />
          <p className="hint" id={id('file-hint')}>
            A file in this app’s datasource folder on the service, e.g. <code>sales.db</code>.
          </p>
        </div>
      ) : (
        <>
          <div className="field-row">
            <div className="field field--grow">
              <label htmlFor={id('host')}>Host</label>
              <input
                id={id('host')}
                value={parts.host}
                autoComplete="off"
                spellCheck={false}
                onChange={(e) => set({ host: e.target.value })}
              />
            </div>
            <div className="field field--port">
              <label htmlFor={id('port')}>Port</label>
              <input
                id={id('port')}
                value={parts.port}
                inputMode="numeric"
                autoComplete="off"
                onChange={(e) => set({ port: e.target.value })}
              />
            </div>
          </div>
          <div className="field">
            <label htmlFor={id('database')}>Database</label>
            <input
              id={id('database')}
              value={parts.database}
              autoComplete="off"
              spellCheck={false}
              onChange={(e) => set({ database: e.target.value })}
            />
          </div>
          <div className="field-row">
            <div className="field field--grow">
              <label htmlFor={id('user')}>User</label>
              <input
                id={id('user')}
                value={parts.user}
                autoComplete="off"
                spellCheck={false}
                onChange={(e) => set({ user: e.target.value })}
              />
            </div>
            <div className="field field--grow">
              <label htmlFor={id('password')}>Password</label>
              <input
                id={id('password')}
                type="password"
                value={parts.password}
                autoComplete="new-password"
                onChange={(e) => set({ password: e.target.value })}
              />
            </div>
          </div>
          <div className="field">
            <label htmlFor={id('tls')}>TLS</label>
            <select
              id={id('tls')}
              value={parts.tls}
              onChange={(e) => set({ tls: e.target.value as ConnectionParts['tls'] })}
            >
              <option value="off">Off</option>
              <option value="verify">On, certificate verified</option>
              {parts.type !== 'mysql' && (
                <option value="unverified">On, certificate not verified</option>
              )}
            </select>
          </div>
        </>
      )}
    </>
  );
}
