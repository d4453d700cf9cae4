import { useState } from 'react';
import { Link } from 'react-router';
import { get, seg } from '../../shared/api';
import type { ModelGroup } from '../../shared/types';
import { useLoad } from '../../shared/use-load';
import { ErrorMessage, Loading } from '../../shared/ui';

/**
 * Chooses the API's table from the app's model (CONTRACT.md §3 `GET …/model/tables?search=`):
 * tables grouped by datasource, narrowed by a search on table or datasource name (the service
 * does the matching), one radio button per table.
 */
export function TablePicker({
  appId,
  value,
  onChange,
}: {
  appId: string;
  value: string | null;
  onChange: (table: string) => void;
}) {
  const [search, setSearch] = useState('');
  const groups = useLoad(
    () =>
      get<ModelGroup[]>(
        `/api/apps/${seg(appId)}/model/tables?search=${encodeURIComponent(search.trim())}`,
      ),
    `${appId}:${search.trim()}`,
  );

  return (
    <div className="table-picker">
      <div className="field">
        <label htmlFor="table-search">Search tables</label>
        <input
          id="table-search"
          type="search"
          value={search}
          aria-describedby="table-search-hint"
          aria-controls="table-choices"
          onChange={(e) => setSearch(e.target.value)}
        />
        <p className="hint" id="table-search-hint">
          Matches a table name or a datasource name.
          {value && (
            <>
              {' '}
              Chosen: <strong>{value}</strong>.
            </>
          )}
        </p>
      </div>
      <div id="table-choices" className="table-choices" aria-busy={groups.loading}>
        {groups.loading && !groups.data && <Loading what="tables" />}
        <ErrorMessage error={groups.error} />
        {groups.data?.length === 0 && (
          <p role="status">
            {search.trim() ? (
              `No table or datasource matches “${search.trim()}”.`
            ) : (
              <>
                No tables imported yet:{' '}
                <Link to={`/apps/${seg(appId)}/model`}>import tables into the data model</Link>{' '}
                first.
              </>
            )}
          </p>
        )}
        {groups.data?.map((group) => (
          <fieldset key={group.datasource.id} className="fieldset">
            <legend>Datasource {group.datasource.name}</legend>
            {group.tables.length === 0 && <p>No imported tables.</p>}
            {group.tables.map((table) => {
              const id = `table-${group.datasource.id}-${table.name}`;
              const notes = [
                `${table.fields.length} columns`,
                ...(table.active ? [] : ['inactive']),
                ...(table.readOnly ? ['view, select only'] : []),
              ];
              return (
                <div key={table.name} className="check">
                  <input
                    type="radio"
                    name="table"
                    id={id}
                    value={table.name}
                    checked={value === table.name}
                    aria-describedby={`${id}-hint`}
                    onChange={() => onChange(table.name)}
                  />
                  <label htmlFor={id}>{table.name}</label>
                  <span className="hint" id={`${id}-hint`}>
                    {notes.join(', ')}
                  </span>
                </div>
              );
            })}
          </fieldset>
        ))}
      </div>
    </div>
  );
}
