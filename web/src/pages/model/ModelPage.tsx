import { useState } from 'react';
import { Link } from 'react-router';
import { describeError, get, post, seg } from '../../shared/api';
import type { App } from '../../shared/types';
import { useLoad } from '../../shared/use-load';
import { ErrorMessage, Feedback, Loading } from '../../shared/ui';
import { AppFrame } from '../apps/AppFrame';
import { changesOf, type TableChanges } from './column-changes';
import type { Datasource, FullModelGroup, FullModelTable, LiveTable } from './model-types';
import { liveName } from './model-types';
import { ModelTableDetails } from './ModelTableDetails';

/** An app's datasources with their model tables (`GET …/datasources`, `GET …/model/tables`). */
async function loadModel(
  appId: string,
): Promise<{ datasources: Datasource[]; groups: FullModelGroup[] }> {
  const [datasources, groups] = await Promise.all([
    get<Datasource[]>(`/api/apps/${seg(appId)}/datasources`),
    get<FullModelGroup[]>(`/api/apps/${seg(appId)}/model/tables`),
  ]);
  return { datasources, groups };
}

/**
 * The data model of an app (`/apps/:appId/model`, issue 27 item 3), in the builder's working
 * version: per datasource, the live tables and views of its database with which are imported,
 * importing the ticked ones and refreshing the imported ones (then what changed: tables new to
 * the model, new, dropped and retyped columns), and each imported table's columns, key,
 * relations and activation (`ModelTableDetails`).
 */
export function ModelPage() {
  return <AppFrame section="Data model">{(app) => <DataModel app={app} />}</AppFrame>;
}

/** The page for a loaded app. */
function DataModel({ app }: { app: App }) {
  const model = useLoad(() => loadModel(app.id), app.id);
  if (model.loading && !model.data) return <Loading what="the data model" />;
  if (model.error) return <ErrorMessage error={model.error} />;
  const { datasources, groups } = model.data!;
  return (
    <>
      <p className="lead">
        Import tables and views of a datasource to serve them; changes go to your working version.
        Refresh after the database changed to read its columns again.
      </p>
      {datasources.length === 0 && (
        <p>
          No datasources yet. <Link to={`/apps/${seg(app.id)}/datasources`}>Add a datasource</Link>{' '}
          first.
        </p>
      )}
      {datasources.map((ds) => (
        <DatasourceModel
          key={ds.id}
          app={app}
          datasource={ds}
          tables={groups.find((g) => g.datasource.id === ds.id)?.tables ?? []}
          onChanged={model.reload}
        />
      ))}
    </>
  );
}

/** Whether a model table is the live table `live`. */
const isTable = (t: FullModelTable, live: LiveTable) =>
  t.dbName === live.name && (t.schema ?? null) === (live.schema ?? null);

/** One datasource: its live tables with import and refresh, and its imported tables. */
function DatasourceModel({
  app,
  datasource: ds,
  tables,
  onChanged,
}: {
  app: App;
  datasource: Datasource;
  tables: FullModelTable[];
  onChanged: () => void;
}) {
  const live = useLoad(
    () => get<LiveTable[]>(`/api/apps/${seg(app.id)}/datasources/${seg(ds.id)}/tables`),
    ds.id,
  );
  const [ticked, setTicked] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [changes, setChanges] = useState<TableChanges[] | null>(null);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);
  const headingId = `ds-${ds.id}`;

  /** Imports `names` (`schema.table`) and reports what changed against the model before. */
  async function importTables(names: string[], verb: 'Imported' | 'Refreshed') {
    setBusy(true);
    setNotice(null);
    setChanges(null);
    setError(null);
    try {
      const before = new Map(tables.map((t) => [t.name, t]));
      const imported = await post<FullModelTable[]>(`/api/apps/${seg(app.id)}/model/import`, {
        datasourceId: ds.id,
        tables: names,
      });
      const found = changesOf(before, imported);
      setChanges(found);
      const added = found.filter((c) => c.added).length;
      const changed = found.length - added;
      const what = [
        ...(added ? [`${added} new in the model`] : []),
        ...(changed ? [`${changed} changed`] : []),
      ];
      setNotice(
        `${verb} ${imported.length} ${imported.length === 1 ? 'table' : 'tables'}: ${
          what.length ? what.join(', ') : 'nothing changed'
        }.`,
      );
      setTicked(new Set());
      onChanged();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  }

  const liveTables = live.data ?? [];
  const importedLive = liveTables.filter((l) => tables.some((t) => isTable(t, l)));
  const gone = tables.filter(
    (t) => !live.loading && !live.error && !liveTables.some((l) => isTable(t, l)),
  );

  return (
    <section className="card" aria-labelledby={`${headingId}-heading`} id={headingId}>
      <h2 id={`${headingId}-heading`}>Datasource {ds.name}</h2>
      <h3>Tables and views in the database</h3>
      {live.loading && !live.data && <Loading what="the database’s tables" />}
      <ErrorMessage error={live.error} />
      {live.data && liveTables.length === 0 && <p>The database has no tables or views.</p>}
      {liveTables.length > 0 && (
        <fieldset className="fieldset live-tables" aria-describedby={`${headingId}-live-hint`}>
          <legend>Choose tables to import from {ds.name}</legend>
          <p className="hint" id={`${headingId}-live-hint`}>
            {importedLive.length} of {liveTables.length} imported.
          </p>
          <ul className="plain live-list">
            {liveTables.map((l) => {
              const name = liveName(l);
              const model = tables.find((t) => isTable(t, l));
              const box = `${headingId}-live-${name}`;
              return (
                <li key={name} className="check">
                  <input
                    type="checkbox"
                    id={box}
                    checked={ticked.has(name)}
                    aria-describedby={`${box}-state`}
                    onChange={(e) =>
                      setTicked((old) => {
                        const next = new Set(old);
                        if (e.target.checked) next.add(name);
                        else next.delete(name);
                        return next;
                      })
                    }
                  />
                  <label htmlFor={box}>{name}</label>
                  <span className="hint" id={`${box}-state`}>
                    {l.kind === 'view' ? 'view' : 'table'},{' '}
                    {model ? (
                      <>
                        imported{model.name !== l.name ? ` as ${model.name}` : ''}
                        {model.active ? '' : ' (inactive)'}
                      </>
                    ) : (
                      'not imported'
                    )}
                  </span>
                </li>
              );
            })}
          </ul>
          <div className="actions">
            <button
              type="button"
              className="button"
              disabled={busy || ticked.size === 0}
              onClick={() => importTables([...ticked], 'Imported')}
            >
              Import chosen tables<span className="visually-hidden"> of {ds.name}</span>
            </button>
            <button
              type="button"
              className="button button--secondary"
              disabled={busy || importedLive.length === 0}
              onClick={() => importTables(importedLive.map(liveName), 'Refreshed')}
            >
              Refresh imported tables<span className="visually-hidden"> of {ds.name}</span>
            </button>
          </div>
        </fieldset>
      )}
      <Feedback notice={notice} error={error} />
      {changes && changes.length > 0 && <ChangeList changes={changes} />}
      {gone.length > 0 && (
        <div className="warning">
          <p>
            No longer in the database: {gone.map((t) => t.name).join(', ')}. Their Table APIs fail
            until the table is back; deactivate them or delete those APIs.
          </p>
        </div>
      )}
      <h3>Imported tables</h3>
      {tables.length === 0 ? (
        <p>None yet: tick tables above and import them.</p>
      ) : (
        <ul className="plain model-tables">
          {tables.map((t) => (
            <li key={t.name}>
              <ModelTableDetails app={app} table={t} onChanged={onChanged} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** What an import or refresh changed, table by table. */
function ChangeList({ changes }: { changes: TableChanges[] }) {
  return (
    <div className="changes" aria-label="What changed">
      <ul>
        {changes.map((c) => (
          <li key={c.table}>
            <strong>{c.table}</strong>
            {c.added ? (
              ': new in the model'
            ) : (
              <ul>
                {c.newColumns.length > 0 && <li>New columns: {c.newColumns.join(', ')}</li>}
                {c.droppedColumns.length > 0 && (
                  <li>Dropped columns: {c.droppedColumns.join(', ')}</li>
                )}
                {c.typeChanges.map((t) => (
                  <li key={t.column}>
                    Type of {t.column} changed: {t.before} → {t.after}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
